#!/usr/bin/env python3
"""Fills resources/translations/anthro_workbench_zh_CN.ts from the table below.

Run after `cmake --build BUILD --target update_translations` has added new source texts;
texts missing from the table stay unfinished (shown in English) and are listed.
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ZH = {
    '%1 needs a number: "%2"': '%1 需要一个数字："%2"',
    'connections are numbered from 1: "%1"': '连接从 1 开始编号："%1"',
    'unknown frame type "%1" (REQUEST, RESPONSE, STREAM_TOKEN, CANCEL, ERROR)': '未知的帧类型 "%1"（REQUEST、RESPONSE、STREAM_TOKEN、CANCEL、ERROR）',
    'opens no connection of this capture': '不能解开此抓包中的任何连接',
    'opens %n connection(s)': '可解开 %n 个连接',
    'Session capture written to %1': '会话抓包已写入 %1',
    'The embedded endpoint did not start: %1': '内置端点未能启动：%1',
    'Embedded endpoint: %1 (TLS), %2 (lab), %3 (HTTP baseline)': '内置端点：%1（TLS）、%2（实验明文）、%3（HTTP 基线）',
    'Add key log': '添加密钥日志',
    'Key logs (*.log *.txt *.keylog);;All files (*)': '密钥日志 (*.log *.txt *.keylog);;所有文件 (*)',
    'Add server key': '添加服务器密钥',
    'PEM keys (*.pem);;All files (*)': 'PEM 密钥 (*.pem);;所有文件 (*)',
    'About anthro-v1 Workbench': '关于 anthro-v1 工作台',
    '<h3>anthro-v1 Workbench %1</h3><p>Live sessions, captures and latency diagnosis for anthro-v1 and the HTTP Messages API it replaces.</p><p>Qt %2, QCustomPlot, OpenSSL, libsodium, libpcap.</p>':
        '<h3>anthro-v1 工作台 %1</h3><p>面向 anthro-v1 及其所替代的 HTTP Messages API 的实时会话、抓包与延迟诊断。</p><p>Qt %2、QCustomPlot、OpenSSL、libsodium、libpcap。</p>',
    'anthro-v1 Workbench': 'anthro-v1 工作台',
    'Welcome': '欢迎',
    'Live session': '实时会话',
    'Keys': '密钥',
    'Log': '日志',
    '&File': '文件(&F)',
    '&Open Capture…': '打开抓包(&O)…',
    'Open &Recent': '最近打开(&R)',
    'Add &Key Log…': '添加密钥日志(&K)…',
    'Add &Server Key (PEM)…': '添加服务器密钥 PEM(&S)…',
    '&Quit': '退出(&Q)',
    '&Session': '会话(&S)',
    '&New Live Session': '新建实时会话(&N)',
    'Start &Capture…': '开始抓包(&C)…',
    '&View': '视图(&V)',
    '&Language': '语言(&L)',
    '&Help': '帮助(&H)',
    '&About': '关于(&A)',
    'Embedded endpoint %1': '内置端点 %1',
    'No embedded endpoint': '无内置端点',
    'Language: %1': '界面语言：%1',
    'Open capture': '打开抓包',
    'Captures (*.pcap *.pcapng *.cap);;All files (*)': '抓包文件 (*.pcap *.pcapng *.cap);;所有文件 (*)',
    'Tick "Capture this session\'s traffic" and send: the capture opens here when the session ends. For other traffic use `anthro-wb capture -i IFACE -w FILE.pcapng`.':
        '勾选“抓取本会话的流量”后发送：会话结束时抓包会在此打开。其他流量请用 `anthro-wb capture -i 网卡 -w 文件.pcapng`。',
    'No recent captures. Drop a .pcap, .pcapng, key log or PEM file anywhere.': '没有最近的抓包。可将 .pcap、.pcapng、密钥日志或 PEM 文件拖到窗口任意位置。',
    'Live sessions against anthro-v1 or the HTTP Messages API, captures decoded with keys, TTFT and token-rate charts. The embedded local endpoint is running: a new session works without any configuration.':
        '针对 anthro-v1 或 HTTP Messages API 的实时会话、用密钥解码的抓包、TTFT 与 token 速率图表。内置本地端点已在运行：新建会话无需任何配置。',
    'New live session': '新建实时会话',
    'Open capture…': '打开抓包…',
    'Start capture…': '开始抓包…',
    'Recent captures': '最近的抓包',
    'Cancel': '取消',
    'Filter: conn:1 stream:3 type:STREAM_TOKEN text…  (Enter applies)': '过滤：conn:1 stream:3 type:STREAM_TOKEN 文本…（回车应用）',
    'Frame': '帧',
    'Charts': '图表',
    'The capture %1 is no longer open': '抓包 %1 已不再打开',
    'decryption': '解密',
    'frames': '帧',
    '%1 (%2 opened)': '%1（已解开 %2）',
    'negotiation': '协商',
    'refused': '被拒绝',
    'client → server': '客户端 → 服务器',
    'server → client': '服务器 → 客户端',
    'retransmissions': '重传',
    'out of order': '乱序',
    'gaps': '缺口',
    '%1 (%2 bytes)': '%1（%2 字节）',
    'zero window': '零窗口',
    '%1 (%2 ms)': '%1（%2 ms）',
    'window full': '窗口满',
    'duplicate ACKs': '重复 ACK',
    'keep-alives': '保活',
    'bad checksums': '校验和错误',
    'closed': '关闭',
    'Stream %1 was not captured: tick the capture option to see its frames.': '流 %1 未被抓包：勾选抓包选项后才能查看它的帧。',
    'Export chart…': '导出图表…',
    'Export chart': '导出图表',
    'PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)': 'PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)',
    'Chart written to %1': '图表已写入 %1',
    'streams': '流',
    'Stream %1 of connection %2': '连接 %2 的流 %1',
    'Connections': '连接',
    'Loading %1…': '正在加载 %1…',
    '%1 frames': '%1 帧',
    '%1: %2 frames, %3 connections (%4 decrypted)': '%1：%2 帧，%3 个连接（%4 个已解密）',
    'Filtering…': '正在过滤…',
    '%1 of %2 frames': '%2 帧中的 %1 帧',
    '(loading)': '（加载中）',
    '#': '#',
    'Connection': '连接',
    'Transport': '传输',
    'ALPN': 'ALPN',
    'anthro-v1 suite': 'anthro-v1 套件',
    'TLS': 'TLS',
    'Decryption': '解密',
    'Frames': '帧数',
    'Retrans.': '重传',
    'Out of order': '乱序',
    'Zero window': '零窗口',
    'Gaps': '缺口',
    'Bad checksums': '校验和错误',
    'Field': '字段',
    'Value': '值',
    'Bytes': '字节',
    'REQUEST and RESPONSE bodies appear here as JSON (api_key redacted).': 'REQUEST 与 RESPONSE 的消息体以 JSON 显示在此（api_key 已隐去）。',
    'Frame %1': '第 %1 帧',
    '%1, %2 bytes, %3': '%1，%2 字节，%3',
    '(unreadable)': '（无法读取）',
    'No.': '序号',
    'Time (s)': '时间 (s)',
    'Conn': '连接',
    'Direction': '方向',
    'Type': '类型',
    'Stream': '流',
    'Tokens': 'Token 数',
    'Summary': '摘要',
    'Key': '密钥',
    'Contents': '内容',
    'Key log %1 changed; re-reading it': '密钥日志 %1 已变化，正在重新读取',
    'Key log files': '密钥日志文件',
    '%1 ANTHRO_V1, %2 TLS secrets': '%1 条 ANTHRO_V1，%2 条 TLS 密钥',
    'Server keys (PEM)': '服务器密钥（PEM）',
    'X25519, public %1…': 'X25519，公钥 %1…',
    'In %1 (DSB)': '%1 内（DSB）',
    'block %1': '第 %1 块',
    'none': '无',
    'No data': '无数据',
    'Time to first token': '首 token 时间',
    'request start (s)': '请求开始 (s)',
    'TTFT (ms)': 'TTFT (ms)',
    'Token rate': 'Token 速率',
    'tokens/s': 'tokens/s',
    'Inter-token latency': 'Token 间延迟',
    'ITL (ms)': 'ITL (ms)',
    'samples': '样本数',
    'TTFT distribution': 'TTFT 分布',
    'fraction': '比例',
    'last bar: ≥ %1 ms (%2 samples)': '最后一柱：≥ %1 ms（%2 个样本）',
    'baseline': '基线',
    'candidate': '候选',
    'Cannot export to %1: unknown chart': '无法导出到 %1：未知图表',
    'Cannot export to %1: unknown file type "%2" (use .png, .pdf or .svg)': '无法导出到 %1：未知文件类型 "%2"（请用 .png、.pdf 或 .svg）',
    'Cannot write %1': '无法写入 %1',
    'Cannot write %1: %2': '无法写入 %1：%2',
    "Capture this session's traffic into the inspector": '抓取本会话的流量并在检查器中打开',
    'Send': '发送',
    'Run load': '运行压测',
    'Stop load': '停止压测',
    'Stopping: waiting for the requests in flight…': '正在停止：等待进行中的请求完成…',
    'anthro://host:port, anthro+lab://host:port, https://host/v1/messages, https://host/v1/chat/completions':
        'anthro://主机:端口、anthro+lab://主机:端口、https://主机/v1/messages、https://主机/v1/chat/completions',
    'No API key': '不用 API 密钥',
    'From $ANTHROPIC_API_KEY': '取自 $ANTHROPIC_API_KEY',
    'From $OPENAI_API_KEY': '取自 $OPENAI_API_KEY',
    'Typed below': '在右侧输入',
    'API key (kept in memory only, never saved)': 'API 密钥（仅保存在内存中，从不写盘）',
    'System prompt (optional)': '系统提示（可选）',
    'Explain tail latency in one paragraph.': '用一段话解释尾延迟。',
    '× ': '× ',
    'Requests on the same connection, one after another': '同一连接上依次发送的请求数',
    'The answer streams here.': '回答会在此流式显示。',
    'open loop': '开环',
    ' req/s': ' 请求/秒',
    'Open loop (used when concurrency is 0): constant arrivals at this rate': '开环（并发为 0 时使用）：按此速率匀速到达',
    'as baseline': '作为基线',
    'as candidate': '作为候选',
    'Request': '请求',
    'Target': '目标',
    'max_tokens': 'max_tokens',
    'Model': '模型',
    'System': '系统',
    'Message': '消息',
    'Answer': '回答',
    'Load': '压测',
    'Concurrency': '并发',
    'Rate': '速率',
    'Requests': '请求数',
    'A session is already running; cancel it first.': '已有会话在运行，请先取消。',
    'ANTHROPIC_API_KEY is not set in the environment; sending without a key.': '环境变量中没有 ANTHROPIC_API_KEY，将不带密钥发送。',
    'Capturing on lo…': '正在 lo 上抓包…',
    'Capture failed: %1': '抓包失败：%1',
    'stream %1: TTFT %2, E2E %3, %4 tokens, mean ITL %5, stop %6': '流 %1：TTFT %2，端到端 %3，%4 个 token，平均 ITL %5，结束原因 %6',
    'Session: %1': '会话：%1',
    'A load is already running.': '已有压测在运行。',
    'Set a concurrency, or a rate for an open loop.': '请设置并发，或为开环设置速率。',
    'Running…': '运行中…',
    '%1 requests, %2 tokens/s, TTFT p50 %3 ms, p99 %4 ms': '%1 个请求，%2 tokens/s，TTFT p50 %3 ms，p99 %4 ms',
    'anthro-v1 Workbench: live sessions, captures, latency charts.': 'anthro-v1 工作台：实时会话、抓包、延迟图表。',
    'NSS key log with ANTHRO_V1 lines (repeatable).': '含 ANTHRO_V1 行的 NSS 密钥日志（可重复）。',
    'Server static X25519 key, PEM (repeatable).': '服务器静态 X25519 密钥，PEM 格式（可重复）。',
    'Take the README screenshots into DIR and exit.': '将 README 截图保存到 DIR 后退出。',
    "The spec's vectors directory (for --screenshots).": '规范测试向量目录（用于 --screenshots）。',
    'A pcap or pcapng file to open.': '要打开的 pcap 或 pcapng 文件。',
}


def main() -> int:
    path = Path(__file__).with_name('anthro_workbench_zh_CN.ts')
    tree = ET.parse(path)
    missing = []
    for message in tree.getroot().iter('message'):
        source = message.find('source').text or ''
        translation = message.find('translation')
        text = ZH.get(source)
        if text is None:
            missing.append(source)
            continue
        translation.attrib.pop('type', None)
        for child in list(translation):
            translation.remove(child)
        if message.get('numerus') == 'yes':
            translation.text = None
            form = ET.SubElement(translation, 'numerusform')
            form.text = text
        else:
            translation.text = text
    tree.write(path, encoding='utf-8', xml_declaration=True)
    for source in missing:
        print('untranslated:', source, file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
