// The texts the diagnosis writes for a person (probe_kit's Judge, the latency checklist's probes,
// the causes), in English and 简体中文 (util/message.h). A wire format's probes register theirs
// from its folder.
#include "diagnosis/diagnosis.h"

namespace anthro {
namespace {

const MessageTemplate kDiagnosisMessages[] = {
    {"plain", "{text}", "{text}"},
    {"text.caused_by", "caused by {cause}: {why}", "原因 {cause}：{why}"},
    {"text.remedy", "remedy: {remedy}", "补救：{remedy}"},
    {"list.or", "{first} or {rest}", "{first}或{rest}"},
    {"source.live", "live", "实时"},
    {"source.capture", "capture", "抓包"},
    {"source.system", "system", "本机"},
    // Checklist units (n_unit) and the Judge's.
    {"unit.samples", "samples", "个样本"},
    {"unit.requests", "requests", "个请求"},
    {"unit.connections", "connections", "个连接"},
    {"unit.streams", "streams", "个流"},
    {"unit.frames", "frames", "个帧"},
    {"unit.probes", "probes", "个探测"},
    {"unit.pairs", "pairs", "对"},
    {"unit.replies", "replies", "个回复"},
    {"unit.readings", "readings", "次读数"},
    {"unit.exchanges", "exchanges", "次交换"},
    {"unit.resumes", "resumes", "次恢复"},
    {"unit.429 errors", "429 errors", "个 429 错误"},
    {"unit.heartbeat gaps", "heartbeat gaps", "个心跳间隔"},
    {"unit.schema pairs", "schema pairs", "对模式"},
    {"unit.tool calls", "tool calls", "次工具调用"},
    {"unit.requests of each kind", "requests of each kind", "个每类请求"},
    {"unit.MODEL_OUTPUT chunks under backpressure", "MODEL_OUTPUT chunks under backpressure", "个背压下的 MODEL_OUTPUT 块"},
    {"probe.need_more", "need {need} more {unit} (have {have})", "还需 {need} {unit}（已有 {have}）"},
    {"probe.crossed", "{what} {value}{unit} {compare} {limit}", "{what} {value}{unit} {compare} {limit}"},
    {"probe.because", "{what}: {why}", "{what}：{why}"},
    {"probe.p95_ms", "p95 {p95} ms", "p95 {p95} ms"},
    {"probe.manual", "a person checks this item and ticks it with a note", "由人工检查此项并附注勾选"},
    {"probe.not_measured", "not measured: a {sources} source would measure it", "未测量：{sources}来源可以测量它"},
    {"probe.anthro_only",
     "cannot apply: it measures {what}, and none of the {sent} requests spoke anthro-v1 (they went over HTTP): more of "
     "them would not settle it; an anthro:// or anthro+lab:// target, or a capture of one, would",
     "无法适用：它测量{what}，而 {sent} 个请求都未使用 anthro-v1（走的是 HTTP）：更多此类请求也无法判定；anthro:// 或 "
     "anthro+lab:// 目标，或其抓包，才能判定"},
    {"anthro_only.alpn", "the ALPN answer to a client that offers anthro-v1", "对提供 anthro-v1 的客户端的 ALPN 应答"},
    {"anthro_only.connection-reuse", "requests per anthro-v1 connection", "每个 anthro-v1 连接的请求数"},
    {"anthro_only.frame-decode-time", "the decrypt and verify time of anthro-v1 frames", "anthro-v1 帧的解密和校验时间"},
    {"anthro_only.ring-buffer-stall", "the anthro-v1 client's receive ring", "anthro-v1 客户端的接收环"},
    {"anthro_only.server-stall", "the token gaps of anthro-v1 streams", "anthro-v1 流的令牌间隔"},
    {"anthro_only.cancel-latency", "a CANCEL's cancelled RESPONSE (HTTP has no CANCEL: its client closes the connection)",
     "CANCEL 后已取消的 RESPONSE（HTTP 没有 CANCEL：其客户端直接关闭连接）"},
    {"anthro_only.frame-drops", "anthro-v1 frames refused, skipped or repeated", "被拒绝、跳过或重复的 anthro-v1 帧"},
    {"anthro_only.utf8-mismatch", "an anthro-v1 stream's text against the HTTP baseline's", "anthro-v1 流的文本与 HTTP 基线的对比"},
    {"anthro_only.connection-duration", "anthro-v1 connections", "anthro-v1 连接"},
    {"anthro_only.cancel-rate", "the CANCELs of anthro-v1 requests", "anthro-v1 请求的 CANCEL"},
    {"alpn.wrong", "{wrong} of the connections that offered anthro-v1 got \"{got}\"", "提供 anthro-v1 的连接中有 {wrong} 个得到“{got}”"},
    {"alpn.old_openssl", "{openssl} cannot offer ALPN (1.0.2 or later needed)", "{openssl} 无法提供 ALPN（需要 1.0.2 或更高版本）"},
    {"alpn.pass", "every connection that offered anthro-v1 got it", "每个提供 anthro-v1 的连接都得到了它"},
    {"alpn.openssl_offers", "{openssl} offers ALPN", "{openssl} 支持 ALPN"},
    {"http_fallback.crossed", "connections that spoke HTTP without offering anthro-v1:", "未提供 anthro-v1 而使用 HTTP 的连接："},
    {"http_fallback.pass", "no client spoke HTTP to the server instead of anthro-v1", "没有客户端以 HTTP 代替 anthro-v1 与服务器通信"},
    {"connection_reuse.crossed", "{connections} connections for {requests} requests: reuse", "{connections} 个连接承载 {requests} 个请求：复用率"},
    {"connection_reuse.pass", "reuse {reuse} ({connections} connections, {requests} requests)", "复用率 {reuse}（{connections} 个连接，{requests} 个请求）"},
    {"connection_reuse.reopened", "{reopened} of {opened} connections were reopened after a reset (connection-reset) and are not counted",
     "{opened} 个连接中有 {reopened} 个是重置（connection-reset）后重开的，未计入"},
    {"frame_decode_time.crossed", "p99 decrypt + verify", "p99 解密 + 校验"},
    {"frame_decode_time.powersave", "CPU frequency governor is powersave on {powersave} of {cpus} CPUs", "{cpus} 个 CPU 中有 {powersave} 个的频率调节器为 powersave"},
    {"frame_decode_time.pass", "p99 {p99} ms over {frames} frames", "{frames} 个帧的 p99 为 {p99} ms"},
    {"frame_decode_time.no_powersave", "no CPU runs the powersave governor", "没有 CPU 使用 powersave 调节器"},
    {"gpu_context_wait.crossed", "p95 GPU context wait", "p95 GPU 上下文等待"},
    {"gpu_context_wait.rebalance", "p95 GPU context wait (rebalance)", "p95 GPU 上下文等待（重新均衡）"},
    {"gpu_context_wait.no_timing",
     "cannot apply: none of the {ok} answered requests carried the server's timing (context_wait_us): this server does "
     "not report its GPU context wait, so more requests would not settle it",
     "无法适用：{ok} 个已应答请求都未携带服务器计时（context_wait_us）：此服务器不报告 GPU 上下文等待，更多请求也无法判定"},
    {"nic_drops.crossed", "NIC drops", "网卡丢包"},
    {"nic_drops.pass", "{rate} drops/s over {seconds} s", "{seconds} s 内每秒丢包 {rate}"},
    {"ring_buffer_stall.crossed", "streams whose receive ring filled (zero window):", "接收环被填满（零窗口）的流："},
    {"ring_buffer_stall.pass", "the client's receive ring never filled during a stream", "流期间客户端接收环从未填满"},
    {"server_stall.crossed", "{paused} streams paused; longest gap", "{paused} 个流出现停顿；最长间隔"},
    {"server_stall.pass", "longest gap {worst} ms over {streams} streams", "{streams} 个流中最长间隔 {worst} ms"},
    {"connection_reset.crossed", "streams cut before RESPONSE or ERROR:", "在 RESPONSE 或 ERROR 之前被切断的流："},
    {"connection_reset.pass", "every stream ended with RESPONSE or ERROR", "每个流都以 RESPONSE 或 ERROR 结束"},
    {"cancel_not_sent.crossed", "streams the client abandoned without CANCEL:", "客户端未发送 CANCEL 就放弃的流："},
    {"cancel_not_sent.pass", "every stream the client gave up was cancelled", "客户端放弃的每个流都已取消"},
    {"cancel_latency.asked_up_to", "up to {tokens} tokens", "最多 {tokens} 个令牌"},
    {"cancel_latency.asked_long", "a long reply", "长回复"},
    {"cancel_latency.short_replies",
     "{count} probe replies ended on their own at most {longest} ms after their CANCEL, too soon to tell a cancel slower "
     "than {threshold} ms (the probes asked for {asked}; the replies had at most {most_tokens}): more probes will not "
     "help; longer replies would (a model or endpoint that answers at length)",
     "{count} 个探测回复在 CANCEL 后至多 {longest} ms 内自行结束，太快，无法判断取消是否慢于 {threshold} ms（探测请求了{asked}；"
     "回复至多 {most_tokens} 个令牌）：更多探测无济于事；更长的回复才行（回答较长的模型或端点）"},
    {"cancel_latency.read_late",
     "{count} probe replies ended on their own while the client's receive ring was full, which says when the client "
     "read them, not when the server cancelled (ring-buffer-stall)",
     "{count} 个探测回复在客户端接收环已满时自行结束，这只说明客户端何时读取，而非服务器何时取消（ring-buffer-stall）"},
    {"cancel_latency.unanswered", "{unanswered} of {n} CANCELs got no cancelled RESPONSE within {limit} ms",
     "{n} 个 CANCEL 中有 {unanswered} 个在 {limit} ms 内未收到已取消的 RESPONSE"},
    {"cancel_latency.crossed", "p95 cancel latency", "p95 取消延迟"},
    {"cancel_latency.pass", "p95 {p95} ms over {n} probes", "{n} 个探测的 p95 为 {p95} ms"},
    {"cancel_latency.at_least",
     "{at_least} of the {n} CANCELs were not honoured before the reply ended, each counted as the time the reply ran on "
     "after it (a lower bound)",
     "{n} 个 CANCEL 中有 {at_least} 个在回复结束前未被执行，各按其后回复持续的时间计（下限）"},
    {"retry_after_ignored.no_429",
     "no 429 arrived: the server never asked the client to back off, so there was no retry to time (run it against a "
     "server under load, or one started with --fault overload=RATE)",
     "未收到 429：服务器从未要求客户端退避，因此没有可计时的重试（请对负载下的服务器运行，或对以 --fault overload=RATE 启动的服务器运行）"},
    {"retry_after_ignored.crossed", "of {n} 429s, retried early:", "{n} 个 429 中提前重试的："},
    {"retry_after_ignored.pass", "every request after a 429 waited its retry_after_ms ({n} 429s)", "每个 429 之后的请求都等待了 retry_after_ms（{n} 个 429）"},
    {"frame_drops.crossed", "{drops} of {frames} frames refused, skipped or repeated: rate", "{frames} 个帧中有 {drops} 个被拒绝、跳过或重复：比率"},
    {"frame_drops.pass", "no frame refused, skipped or repeated in {frames} frames", "{frames} 个帧中没有被拒绝、跳过或重复的帧"},
    {"ttft_tail.crossed", "p99 TTFT", "p99 TTFT"},
    {"ttft_tail.jitter", "TTFT stddev/median", "TTFT 标准差/中位数"},
    {"ttft_tail.pass", "p99 {p99} ms, stddev/median {jitter}", "p99 {p99} ms，标准差/中位数 {jitter}"},
    {"max_tokens_truncation.too_short",
     "{count} max_tokens probe replies ended on their own after at most {longest} tokens, within the {kept} a 16-bit "
     "max_tokens keeps, so a truncation could not show: more probes will not help; a server that answers the probe with "
     "more tokens would",
     "{count} 个 max_tokens 探测回复在至多 {longest} 个令牌后自行结束，未超出 16 位 max_tokens 所保留的 {kept}，因此截断无法显现：更多探测无济于事；"
     "以更多令牌回答探测的服务器才行"},
    {"max_tokens_truncation.crossed", "requests with max_tokens > 65535 stopped at max_tokens mod 65536:",
     "max_tokens > 65535 的请求停在 max_tokens mod 65536："},
    {"max_tokens_truncation.pass", "max_tokens above 65535 was honoured", "超过 65535 的 max_tokens 得到遵守"},
    {"utf8_mismatch.crossed", "texts corrupted on anthro-v1 (invalid UTF-8 or differing from the baseline):",
     "在 anthro-v1 上损坏的文本（无效 UTF-8 或与基线不同）："},
    {"utf8_mismatch.pass_streams", "4-byte UTF-8 arrived intact ({n} streams)", "4 字节 UTF-8 完好到达（{n} 个流）"},
    {"utf8_mismatch.pass_pairs", "4-byte UTF-8 arrived intact ({n} pairs)", "4 字节 UTF-8 完好到达（{n} 对）"},
    {"connection_duration.crossed", "p95 connection duration", "p95 连接时长"},
    {"connection_duration.pass", "p95 {p95} s over {n} connections", "{n} 个连接的 p95 为 {p95} s"},
    {"cancel_rate.crossed", "{cancels} CANCELs in {n} requests: rate", "{n} 个请求中有 {cancels} 个 CANCEL：比率"},
    {"cancel_rate.pass", "{cancels} CANCELs in {n} requests ({rate})", "{n} 个请求中有 {cancels} 个 CANCEL（{rate}）"},
    {"cause.tail_is_context_wait", "context wait is {share} of TTFT in the {requests} slowest requests (p99 and above, median)",
     "在最慢的 {requests} 个请求中（p99 及以上，中位数），上下文等待占 TTFT 的 {share}"},
    {"cause.cancels_behind_full_ring",
     "{behind} of {slow} slow cancels were on streams whose receive ring was full: their cancelled RESPONSE waited behind "
     "unread tokens",
     "{slow} 个慢取消中有 {behind} 个发生在接收环已满的流上：其已取消的 RESPONSE 排在未读令牌之后"},
};

}  // namespace

void register_diagnosis_messages() { register_messages(kDiagnosisMessages); }

}  // namespace anthro
