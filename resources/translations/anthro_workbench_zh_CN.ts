<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <source>%1 needs a number: "%2"</source>
        <translation>%1 需要一个数字："%2"</translation>
    </message>
    <message>
        <source>connections are numbered from 1: "%1"</source>
        <translation>连接从 1 开始编号："%1"</translation>
    </message>
    <message>
        <source>opens no connection of this capture</source>
        <translation>不能解开此抓包中的任何连接</translation>
    </message>
    <message>
        <source>unknown filter key "%1" in "%2": the keys are conn:, stream: and type: (to find the text itself, quote it: "%2")</source>
        <translation>“%2”中的过滤键“%1”未知：可用的键为 conn:、stream: 和 type:（要查找这段文本本身，请加引号："%2"）</translation>
    </message>
    <message>
        <source>unknown bits</source>
        <translation>未知位</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>opens 1 connection</source>
        <translation>可解开 1 个连接</translation>
    </message>
    <message numerus="yes">
        <source>opens %n connections</source>
        <translation><numerusform>可解开 %n 个连接</numerusform></translation>
    </message>
    <message>
        <source>unknown frame type "%1" (%2)</source>
        <translation>未知的帧类型 "%1"（%2）</translation>
    </message>
</context>
<context>
    <name>Report</name>
    <message>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>warn</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>fail</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>inconclusive</source>
        <translation>证据不足</translation>
    </message>
    <message>
        <source>manual</source>
        <translation>人工</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>Redacted</source>
        <translation>已脱敏</translation>
    </message>
    <message>
        <source>Workbench</source>
        <translation>工作台</translation>
    </message>
    <message>
        <source>Result file</source>
        <translation>结果文件</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Capture file</source>
        <translation>抓包文件</translation>
    </message>
    <message>
        <source>Capture SHA-256</source>
        <translation>抓包 SHA-256</translation>
    </message>
    <message>
        <source>not readable here</source>
        <translation>此处无法读取</translation>
    </message>
    <message>
        <source>Report written</source>
        <translation>报告生成时间</translation>
    </message>
    <message>
        <source>Machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <source>OpenSSL</source>
        <translation>OpenSSL</translation>
    </message>
    <message>
        <source>Qt</source>
        <translation>Qt</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>%1 more rows in the JSON</source>
        <translation>另有 %1 行见 JSON</translation>
    </message>
    <message>
        <source>nothing was redacted</source>
        <translation>没有需要脱敏的内容</translation>
    </message>
    <message>
        <source>TTFT over time</source>
        <translation>TTFT 随时间变化</translation>
    </message>
    <message>
        <source>Token rate</source>
        <translation>Token 速率</translation>
    </message>
    <message>
        <source>ITL histogram</source>
        <translation>ITL 直方图</translation>
    </message>
    <message>
        <source>TTFT CDF</source>
        <translation>TTFT 累积分布</translation>
    </message>
    <message>
        <source>Gates against their thresholds</source>
        <translation>各门限与其阈值</translation>
    </message>
    <message>
        <source>TTFT of both arms</source>
        <translation>两组的 TTFT</translation>
    </message>
    <message>
        <source>requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>anthro-v1</source>
        <translation>anthro-v1</translation>
    </message>
    <message>
        <source>HTTP</source>
        <translation>HTTP</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Transport</source>
        <translation>传输</translation>
    </message>
    <message>
        <source>ALPN</source>
        <translation>ALPN</translation>
    </message>
    <message>
        <source>Suite</source>
        <translation>加密套件</translation>
    </message>
    <message>
        <source>TLS suite</source>
        <translation>TLS 套件</translation>
    </message>
    <message>
        <source>Decryption</source>
        <translation>解密</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>建连</translation>
    </message>
    <message>
        <source>Handshake</source>
        <translation>握手</translation>
    </message>
    <message>
        <source>TCP health</source>
        <translation>TCP 健康状况</translation>
    </message>
    <message>
        <source>Retransmissions</source>
        <translation>重传</translation>
    </message>
    <message>
        <source>Out of order</source>
        <translation>乱序</translation>
    </message>
    <message>
        <source>Zero windows</source>
        <translation>零窗口</translation>
    </message>
    <message>
        <source>Zero window time</source>
        <translation>零窗口时长</translation>
    </message>
    <message>
        <source>Gaps</source>
        <translation>缺口</translation>
    </message>
    <message>
        <source>Bad checksums</source>
        <translation>校验和错误</translation>
    </message>
    <message>
        <source>Duplicate ACKs</source>
        <translation>重复 ACK</translation>
    </message>
    <message>
        <source>Frames</source>
        <translation>帧数</translation>
    </message>
    <message>
        <source>Frames opened</source>
        <translation>已解开的帧</translation>
    </message>
    <message>
        <source>Stream</source>
        <translation>流</translation>
    </message>
    <message>
        <source>TTFT</source>
        <translation>TTFT</translation>
    </message>
    <message>
        <source>E2E</source>
        <translation>端到端</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token 数</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>Mean ITL</source>
        <translation>平均 ITL</translation>
    </message>
    <message>
        <source>Stop reason</source>
        <translation>停止原因</translation>
    </message>
    <message>
        <source>End</source>
        <translation>结束方式</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Latency diagnosis</source>
        <translation>延迟诊断</translation>
    </message>
    <message>
        <source>Checklist</source>
        <translation>检查清单</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>数据来源</translation>
    </message>
    <message>
        <source>Statistic</source>
        <translation>统计量</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>Need more</source>
        <translation>还需</translation>
    </message>
    <message>
        <source>Threshold</source>
        <translation>阈值</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <source>Remedy</source>
        <translation>补救措施</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>发现</translation>
    </message>
    <message>
        <source>%1 items: %2</source>
        <translation>%1 项：%2</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>Grayscale rollout</source>
        <translation>灰度发布</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Split</source>
        <translation>分流比例</translation>
    </message>
    <message>
        <source>Gate</source>
        <translation>门限</translation>
    </message>
    <message>
        <source>Interval</source>
        <translation>区间</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Promoted by a person while inconclusive</source>
        <translation>尚无定论时由人工放行</translation>
    </message>
    <message>
        <source>Still needed</source>
        <translation>仍需</translation>
    </message>
    <message>
        <source>Rollback</source>
        <translation>回滚</translation>
    </message>
    <message>
        <source>Rollback time</source>
        <translation>回滚耗时</translation>
    </message>
    <message>
        <source>Candidate sockets left</source>
        <translation>残留的候选套接字</translation>
    </message>
    <message>
        <source>Descriptors before and after</source>
        <translation>前后的文件描述符数</translation>
    </message>
    <message>
        <source>Served by the baseline after the switch</source>
        <translation>切换后由基线处理的请求</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>已通过</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>rolled_back</source>
        <translation>已回滚</translation>
    </message>
    <message>
        <source>Live session</source>
        <translation>实时会话</translation>
    </message>
    <message>
        <source>Load benchmark</source>
        <translation>负载压测</translation>
    </message>
    <message>
        <source>Capture analysis</source>
        <translation>抓包分析</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Tokens per second</source>
        <translation>每秒 token 数</translation>
    </message>
    <message>
        <source>Goodput per second</source>
        <translation>每秒有效产出</translation>
    </message>
    <message>
        <source>Errors</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Latency summary</source>
        <translation>延迟汇总</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Packets</source>
        <translation>数据包</translation>
    </message>
    <message>
        <source>TCP segments</source>
        <translation>TCP 分段</translation>
    </message>
    <message>
        <source>Negotiation</source>
        <translation>协商</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>Cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <source>Caused by</source>
        <translation>起因</translation>
    </message>
    <message>
        <source>caused by %1</source>
        <translation>起因：%1</translation>
    </message>
    <message>
        <source>Comparison</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>各项度量</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>度量</translation>
    </message>
    <message>
        <source>Ratio of medians</source>
        <translation>中位数之比</translation>
    </message>
    <message>
        <source>Tail ratio or difference</source>
        <translation>尾部比值或差值</translation>
    </message>
    <message>
        <source>Shift p</source>
        <translation>位移检验 p 值</translation>
    </message>
    <message>
        <source>Shape (KS p)</source>
        <translation>分布形状（KS p 值）</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>已变化</translation>
    </message>
    <message>
        <source>Margin</source>
        <translation>容差</translation>
    </message>
    <message>
        <source>rates</source>
        <translation>比率</translation>
    </message>
    <message>
        <source>Corrected</source>
        <translation>多重比较校正</translation>
    </message>
    <message>
        <source>Not compared</source>
        <translation>未比较</translation>
    </message>
    <message>
        <source>no_worse</source>
        <translation>不更差</translation>
    </message>
    <message>
        <source>worse</source>
        <translation>更差</translation>
    </message>
    <message>
        <source>samples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>SessionTracer</name>
    <message>
        <source>%1 (trailer)</source>
        <translation>%1（trailer）</translation>
    </message>
    <message>
        <source>%1 (trailer %2)</source>
        <translation>%1（trailer 为 %2）</translation>
    </message>
    <message>
        <source>(not a count: “%1”)</source>
        <translation>（不是计数：“%1”）</translation>
    </message>
    <message>
        <source>(expected %1)</source>
        <translation>（应为 %1）</translation>
    </message>
    <message>
        <source>Session ID</source>
        <translation>会话 ID</translation>
    </message>
    <message>
        <source>Context Hash</source>
        <translation>上下文哈希</translation>
    </message>
    <message>
        <source>Token Count</source>
        <translation>Token 计数</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
</context>
<context>
    <name>anthro::gui::MainWindow</name>
    <message>
        <source>Session capture written to %1</source>
        <translation>会话抓包已写入 %1</translation>
    </message>
    <message>
        <source>The embedded endpoint did not start: %1</source>
        <translation>内置端点未能启动：%1</translation>
    </message>
    <message>
        <source>Embedded endpoint: %1 (TLS), %2 (lab), %3 (HTTP baseline)</source>
        <translation>内置端点：%1（TLS）、%2（实验明文）、%3（HTTP 基线）</translation>
    </message>
    <message>
        <source>About anthro-v1 Workbench</source>
        <translation>关于 anthro-v1 工作台</translation>
    </message>
    <message>
        <source>&lt;h3&gt;anthro-v1 Workbench %1&lt;/h3&gt;&lt;p&gt;Live sessions, captures and latency diagnosis for anthro-v1 and the HTTP Messages API it replaces.&lt;/p&gt;&lt;p&gt;Qt %2, QCustomPlot, OpenSSL, libsodium, libpcap.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;anthro-v1 工作台 %1&lt;/h3&gt;&lt;p&gt;面向 anthro-v1 及其所替代的 HTTP Messages API 的实时会话、抓包与延迟诊断。&lt;/p&gt;&lt;p&gt;Qt %2、QCustomPlot、OpenSSL、libsodium、libpcap。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>anthro-v1 Workbench</source>
        <translation>anthro-v1 工作台</translation>
    </message>
    <message>
        <source>Welcome</source>
        <translation>欢迎</translation>
    </message>
    <message>
        <source>Live session</source>
        <translation>实时会话</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>密钥</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open Capture…</source>
        <translation>打开抓包(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Add &amp;Key Log…</source>
        <translation>添加密钥日志(&amp;K)…</translation>
    </message>
    <message>
        <source>Add &amp;Server Key (PEM)…</source>
        <translation>添加服务器密钥 PEM(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Session</source>
        <translation>会话(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;New Live Session</source>
        <translation>新建实时会话(&amp;N)</translation>
    </message>
    <message>
        <source>Start &amp;Capture…</source>
        <translation>开始抓包(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About</source>
        <translation>关于(&amp;A)</translation>
    </message>
    <message>
        <source>Embedded endpoint %1</source>
        <translation>内置端点 %1</translation>
    </message>
    <message>
        <source>No embedded endpoint</source>
        <translation>无内置端点</translation>
    </message>
    <message>
        <source>Language: %1</source>
        <translation>界面语言：%1</translation>
    </message>
    <message>
        <source>Open capture</source>
        <translation>打开抓包</translation>
    </message>
    <message>
        <source>Captures (*.pcap *.pcapng *.cap);;All files (*)</source>
        <translation>抓包文件 (*.pcap *.pcapng *.cap);;所有文件 (*)</translation>
    </message>
    <message>
        <source>The capture %1 is no longer open</source>
        <translation>抓包 %1 已不再打开</translation>
    </message>
    <message>
        <source>Endpoint faults ignored: %1</source>
        <translation>已忽略端点故障设置：%1</translation>
    </message>
    <message>
        <source>Embedded endpoint faults: %1</source>
        <translation>内置端点故障：%1</translation>
    </message>
    <message>
        <source>Embedded endpoint: %1</source>
        <translation>内置端点：%1</translation>
    </message>
    <message>
        <source>Diagnosis capture written to %1</source>
        <translation>诊断抓包已写入 %1</translation>
    </message>
    <message>
        <source>Diagnosis of %1: pick the sources and run it</source>
        <translation>诊断 %1：选择来源后运行</translation>
    </message>
    <message>
        <source>Diagnosis</source>
        <translation>诊断</translation>
    </message>
    <message>
        <source>&amp;Diagnose Latency…</source>
        <translation>延迟诊断(&amp;D)…</translation>
    </message>
    <message>
        <source>Rollout</source>
        <translation>灰度发布</translation>
    </message>
    <message>
        <source>&amp;Rollout Rehearsal…</source>
        <translation>灰度发布演练(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;Export Report…</source>
        <translation>导出报告(&amp;E)…</translation>
    </message>
    <message>
        <source>The current tab's result as an HTML, PDF, Markdown or JSON report</source>
        <translation>将当前标签页的结果导出为 HTML、PDF、Markdown 或 JSON 报告</translation>
    </message>
    <message>
        <source>Nothing to report here yet: run a diagnosis, a rollout, a session or a load, or open a capture.</source>
        <translation>此处尚无可生成报告的结果：请先运行诊断、发布演练、会话或压测，或打开一个抓包。</translation>
    </message>
    <message>
        <source>Save Capture &amp;As…</source>
        <translation>抓包另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>A copy of the capture shown (a session's capture lives in a temporary directory)</source>
        <translation>保存当前抓包的副本（会话抓包位于临时目录中）</translation>
    </message>
    <message>
        <source>&amp;Close Tab</source>
        <translation>关闭标签页(&amp;C)</translation>
    </message>
    <message>
        <source>Save capture as</source>
        <translation>抓包另存为</translation>
    </message>
    <message>
        <source>Capture saved as %1</source>
        <translation>抓包已另存为 %1</translation>
    </message>
    <message>
        <source>Capture not saved to %1: %2</source>
        <translation>抓包未能保存到 %1：%2</translation>
    </message>
    <message>
        <source>%1 is a PEM key, not a capture. Add it as a server key to decrypt captures: Add server key… in the Keys panel, File → Add Server Key, or drop it on the window.</source>
        <translation>%1 是 PEM 密钥，不是抓包文件。请将其添加为服务器密钥以解密抓包：密钥面板中的“添加服务器密钥…”、文件 → 添加服务器密钥，或将其拖到窗口上。</translation>
    </message>
    <message>
        <source>%1 is a key log, not a capture. Add it as a key log to decrypt captures: Add key log… in the Keys panel, File → Add Key Log, or drop it on the window.</source>
        <translation>%1 是密钥日志，不是抓包文件。请将其添加为密钥日志以解密抓包：密钥面板中的“添加密钥日志…”、文件 → 添加密钥日志，或将其拖到窗口上。</translation>
    </message>
    <message>
        <source>%1 cannot be opened as a capture: %2</source>
        <translation>%1 无法作为抓包打开：%2</translation>
    </message>
    <message>
        <source>Not a capture</source>
        <translation>不是抓包文件</translation>
    </message>
    <message>
        <source>Add as key</source>
        <translation>添加为密钥</translation>
    </message>
    <message>
        <source>Capture written to %1</source>
        <translation>抓包已写入 %1</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>C&amp;ompare Two Results…</source>
        <translation>对比两个结果(&amp;O)…</translation>
    </message>
    <message>
        <source>a live session</source>
        <translation>实时会话</translation>
    </message>
    <message>
        <source>a load</source>
        <translation>负载</translation>
    </message>
    <message>
        <source>a diagnosis</source>
        <translation>诊断</translation>
    </message>
    <message>
        <source>a rollout</source>
        <translation>灰度发布</translation>
    </message>
    <message>
        <source>a comparison</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>a capture</source>
        <translation>抓包</translation>
    </message>
    <message>
        <source>Still running: %1.</source>
        <translation>仍在运行：%1。</translation>
    </message>
    <message numerus="yes">
        <source>%n capture(s) not saved: %1.</source>
        <translation><numerusform>%n 个抓包未保存：%1。</numerusform></translation>
    </message>
    <message>
        <source>Results not saved or exported: %1.</source>
        <translation>未保存或导出的结果：%1。</translation>
    </message>
    <message>
        <source>Quit anthro-v1 Workbench</source>
        <translation>退出 anthro-v1 Workbench</translation>
    </message>
    <message>
        <source>Quitting now would lose work.</source>
        <translation>现在退出会丢失工作。</translation>
    </message>
    <message>
        <source>Save all…</source>
        <translation>全部保存…</translation>
    </message>
    <message>
        <source>Save captures and results into</source>
        <translation>将抓包和结果保存到</translation>
    </message>
    <message>
        <source>Close capture</source>
        <translation>关闭抓包</translation>
    </message>
    <message>
        <source>%1 is not saved.</source>
        <translation>%1 尚未保存。</translation>
    </message>
    <message>
        <source>It was captured by this window and lives in a temporary folder until you save or discard it.</source>
        <translation>它由本窗口抓取，在您保存或丢弃之前存放在临时文件夹中。</translation>
    </message>
    <message>
        <source>Save…</source>
        <translation>保存…</translation>
    </message>
    <message>
        <source>Stopping what runs, to save it…</source>
        <translation>正在停止运行中的任务以便保存…</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message numerus="yes">
        <source>Saved %n file(s) into %1</source>
        <translation><numerusform>已将 %n 个文件保存到 %1</numerusform></translation>
    </message>
    <message>
        <source>Not everything was saved</source>
        <translation>未能全部保存</translation>
    </message>
    <message>
        <source>Nothing was discarded. These could not be written:
%1</source>
        <translation>没有丢弃任何内容。以下文件无法写入：
%1</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>丢弃</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>anthro::gui::WelcomePage</name>
    <message>
        <source>No recent captures. Drop a .pcap, .pcapng, key log or PEM file anywhere.</source>
        <translation>没有最近的抓包。可将 .pcap、.pcapng、密钥日志或 PEM 文件拖到窗口任意位置。</translation>
    </message>
    <message>
        <source>anthro-v1 Workbench</source>
        <translation>anthro-v1 工作台</translation>
    </message>
    <message>
        <source>Live sessions against anthro-v1 or the HTTP Messages API, captures decoded with keys, TTFT and token-rate charts. The embedded local endpoint is running: a new session works without any configuration.</source>
        <translation>针对 anthro-v1 或 HTTP Messages API 的实时会话、用密钥解码的抓包、TTFT 与 token 速率图表。内置本地端点已在运行：新建会话无需任何配置。</translation>
    </message>
    <message>
        <source>New live session</source>
        <translation>新建实时会话</translation>
    </message>
    <message>
        <source>Open capture…</source>
        <translation>打开抓包…</translation>
    </message>
    <message>
        <source>Start capture…</source>
        <translation>开始抓包…</translation>
    </message>
    <message>
        <source>Recent captures</source>
        <translation>最近的抓包</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::CaptureDialog</name>
    <message>
        <source>From a shell: %1</source>
        <translation>在命令行中：%1</translation>
    </message>
    <message>
        <source>Start capture</source>
        <translation>开始抓包</translation>
    </message>
    <message>
        <source>Interface</source>
        <translation>网卡</translation>
    </message>
    <message>
        <source>Filter</source>
        <translation>过滤器</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Save to</source>
        <translation>保存到</translation>
    </message>
    <message>
        <source>BPF, as tcpdump takes it: tcp port 7443 (empty: everything)</source>
        <translation>BPF 过滤式，与 tcpdump 相同：tcp port 7443（留空：全部）</translation>
    </message>
    <message>
        <source>until Stop</source>
        <translation>直到停止</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>No interface list: %1</source>
        <translation>无法列出网卡：%1</translation>
    </message>
    <message>
        <source>Save capture as</source>
        <translation>抓包另存为</translation>
    </message>
    <message>
        <source>pcapng captures (*.pcapng)</source>
        <translation>pcapng 抓包 (*.pcapng)</translation>
    </message>
    <message>
        <source>Pick an interface to capture on.</source>
        <translation>请选择要抓包的网卡。</translation>
    </message>
    <message>
        <source>Save to: the folder of "%1" does not exist.</source>
        <translation>保存到：“%1”所在的文件夹不存在。</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>正在打开 %1…</translation>
    </message>
    <message>
        <source>Packets: %1, bytes: %2</source>
        <translation>数据包：%1，字节：%2</translation>
    </message>
    <message>
        <source>Capture failed: %1</source>
        <translation>抓包失败：%1</translation>
    </message>
    <message>
        <source>Written to %1 (kernel drops %2, interface drops %3).</source>
        <translation>已写入 %1（内核丢包 %2，网卡丢包 %3）。</translation>
    </message>
    <message>
        <source>Capturing on %1…</source>
        <translation>正在 %1 上抓包…</translation>
    </message>
    <message>
        <source>Stopping: writing the file…</source>
        <translation>正在停止：写入文件…</translation>
    </message>
    <message>
        <source>This account may not capture: the capture helper lacks its capabilities. An administrator grants them once (installing the .deb does): %1</source>
        <translation>此账户无法抓包：抓包助手缺少所需的能力（capabilities）。管理员授予一次即可（安装 .deb 时会自动授予）：%1</translation>
    </message>
    <message>
        <source>%1: %2 key lines of this workbench's connections embedded; %3 older ones were dropped (at most %4 are kept).</source>
        <translation>%1：已嵌入本工作台连接的 %2 行密钥；较早的 %3 行已丢弃（最多保留 %4 行）。</translation>
    </message>
    <message>
        <source>%1: %2 key lines of this workbench's connections embedded.</source>
        <translation>%1：已嵌入本工作台连接的 %2 行密钥。</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::CaptureInspector</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Filter: conn:1 stream:3 type:STREAM_TOKEN text…  (Enter applies)</source>
        <translation>过滤：conn:1 stream:3 type:STREAM_TOKEN 文本…（回车应用）</translation>
    </message>
    <message>
        <source>Frame</source>
        <translation>帧</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>%1 frames</source>
        <translation>%1 帧</translation>
    </message>
    <message>
        <source>%1: %2 frames, %3 connections (%4 decrypted)</source>
        <translation>%1：%2 帧，%3 个连接（%4 个已解密）</translation>
    </message>
    <message>
        <source>Filtering…</source>
        <translation>正在过滤…</translation>
    </message>
    <message>
        <source>%1 of %2 frames</source>
        <translation>%2 帧中的 %1 帧</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>streams</source>
        <translation>流</translation>
    </message>
    <message>
        <source>Stream %1 of connection %2</source>
        <translation>连接 %2 的流 %1</translation>
    </message>
    <message>
        <source>Diagnose this capture</source>
        <translation>诊断此抓包</translation>
    </message>
    <message>
        <source>No connection %1 in %2</source>
        <translation>%2 中没有连接 %1</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>导出报告…</translation>
    </message>
    <message>
        <source>Connections, TCP health and per-stream timing as HTML, PDF, Markdown or JSON</source>
        <translation>将连接、TCP 健康状况和各流的时延导出为 HTML、PDF、Markdown 或 JSON</translation>
    </message>
    <message>
        <source>Go to frame: "%1" is not a frame number</source>
        <translation>跳转到帧："%1" 不是帧编号</translation>
    </message>
    <message>
        <source>Go to frame…</source>
        <translation>跳转到帧…</translation>
    </message>
    <message>
        <source>View</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>Time format, time reference, marks, go to frame, statistics</source>
        <translation>时间格式、时间参考、标记、跳转到帧、统计</translation>
    </message>
    <message>
        <source>Statistics</source>
        <translation>统计</translation>
    </message>
    <message>
        <source>Time of day</source>
        <translation>当天时间</translation>
    </message>
    <message>
        <source>Seconds since capture start</source>
        <translation>自抓包开始的秒数</translation>
    </message>
    <message>
        <source>Seconds since previous displayed frame</source>
        <translation>自上一显示帧的秒数</translation>
    </message>
    <message>
        <source>Seconds since time reference</source>
        <translation>自时间参考的秒数</translation>
    </message>
    <message>
        <source>Set / unset time reference</source>
        <translation>设置 / 取消时间参考</translation>
    </message>
    <message>
        <source>Mark / unmark frame</source>
        <translation>标记 / 取消标记帧</translation>
    </message>
    <message>
        <source>Filter…</source>
        <translation>过滤…</translation>
    </message>
    <message>
        <source>Apply filter</source>
        <translation>应用过滤</translation>
    </message>
    <message>
        <source>Copy rows</source>
        <translation>复制行</translation>
    </message>
    <message>
        <source>Filter not applied: %1. The list still shows every frame.</source>
        <translation>过滤未应用：%1。列表仍显示全部帧。</translation>
    </message>
    <message>
        <source>Filter not applied: %1. The list still shows the frames of "%2".</source>
        <translation>过滤未应用：%1。列表仍显示“%2”的帧。</translation>
    </message>
    <message>
        <source>Sorting…</source>
        <translation>正在排序…</translation>
    </message>
    <message>
        <source>No frame %1: the capture has %2 frames.</source>
        <translation>没有第 %1 帧：此抓包共有 %2 帧。</translation>
    </message>
    <message>
        <source>Frame %1 is not in the list: the filter "%2" hides it.</source>
        <translation>第 %1 帧不在列表中：过滤“%2”隐藏了它。</translation>
    </message>
    <message>
        <source>Copied the first %1 of the %2 selected rows.</source>
        <translation>已复制所选 %2 行中的前 %1 行。</translation>
    </message>
    <message>
        <source>Copy field values</source>
        <translation>复制字段值</translation>
    </message>
    <message>
        <source>Copy bytes as hex</source>
        <translation>以十六进制复制字节</translation>
    </message>
    <message>
        <source>Filter on %1</source>
        <translation>按 %1 过滤</translation>
    </message>
    <message>
        <source>%1: %2 frames, 1 connection (%3 decrypted)</source>
        <translation>%1：%2 帧，1 个连接（%3 个已解密）</translation>
    </message>
    <message>
        <source>Cut short: the file ends at byte %1, inside %2. The %3 packets before it are shown; nothing after was captured.</source>
        <translation>文件被截断：在第 %1 字节处结束，位于 %2 之中。显示其之前的 %3 个数据包；之后的内容未被抓取。</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::CaptureStatistics</name>
    <message>
        <source>Connections</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Streams</source>
        <translation>流</translation>
    </message>
    <message>
        <source>TTFT</source>
        <translation>TTFT</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>The table shown, in its order, as CSV</source>
        <translation>将当前表格按显示顺序导出为 CSV</translation>
    </message>
    <message>
        <source>Double-click a stream to show its frames</source>
        <translation>双击某个流以显示其帧</translation>
    </message>
    <message>
        <source>No.</source>
        <translation>序号</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Transport</source>
        <translation>传输</translation>
    </message>
    <message>
        <source>Decryption</source>
        <translation>解密</translation>
    </message>
    <message>
        <source>Frames</source>
        <translation>帧数</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token 数</translation>
    </message>
    <message>
        <source>TTFT P50 (ms)</source>
        <translation>TTFT P50 (ms)</translation>
    </message>
    <message>
        <source>TTFT P99 (ms)</source>
        <translation>TTFT P99 (ms)</translation>
    </message>
    <message>
        <source>Retrans.</source>
        <translation>重传</translation>
    </message>
    <message>
        <source>Bad checksums</source>
        <translation>校验和错误</translation>
    </message>
    <message>
        <source>Conn</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Stream</source>
        <translation>流</translation>
    </message>
    <message>
        <source>End</source>
        <translation>结束方式</translation>
    </message>
    <message>
        <source>TTFT (ms)</source>
        <translation>TTFT (ms)</translation>
    </message>
    <message>
        <source>E2E (ms)</source>
        <translation>端到端 (ms)</translation>
    </message>
    <message>
        <source>Mean ITL (ms)</source>
        <translation>平均 ITL (ms)</translation>
    </message>
    <message>
        <source>P99 ITL (ms)</source>
        <translation>P99 ITL (ms)</translation>
    </message>
    <message>
        <source>Max gap (ms)</source>
        <translation>最大间隔 (ms)</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>Packets</source>
        <translation>数据包</translation>
    </message>
    <message>
        <source>n</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>Min (ms)</source>
        <translation>最小 (ms)</translation>
    </message>
    <message>
        <source>P50 (ms)</source>
        <translation>P50 (ms)</translation>
    </message>
    <message>
        <source>P90 (ms)</source>
        <translation>P90 (ms)</translation>
    </message>
    <message>
        <source>P95 (ms)</source>
        <translation>P95 (ms)</translation>
    </message>
    <message>
        <source>P99 (ms)</source>
        <translation>P99 (ms)</translation>
    </message>
    <message>
        <source>Max (ms)</source>
        <translation>最大 (ms)</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Export statistics</source>
        <translation>导出统计</translation>
    </message>
    <message>
        <source>CSV (*.csv);;All files (*)</source>
        <translation>CSV (*.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Statistics written to %1</source>
        <translation>统计已写入 %1</translation>
    </message>
    <message>
        <source>Statistics not written: %1</source>
        <translation>统计未写入：%1</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::ClientFaultsBox</name>
    <message>
        <source>Client faults</source>
        <translation>客户端故障</translation>
    </message>
    <message>
        <source>Misbehave as a faulty client would, to see the checklist catch it</source>
        <translation>模拟有缺陷的客户端行为，看检查清单能否发现</translation>
    </message>
    <message>
        <source>Close without CANCEL</source>
        <translation>不发 CANCEL 直接关闭</translation>
    </message>
    <message>
        <source>Stop reading after 5 tokens and close the connection without sending CANCEL (--close-without-cancel). Triggers cancel-not-sent.</source>
        <translation>收到 5 个 token 后停止读取并关闭连接，不发送 CANCEL（--close-without-cancel）。触发 cancel-not-sent。</translation>
    </message>
    <message>
        <source>Retry 429 at once</source>
        <translation>立即重试 429</translation>
    </message>
    <message>
        <source>Retry a 429 at once instead of after retry_after_ms (--retry-naive). Triggers retry-after-ignored against an endpoint with the overload fault.</source>
        <translation>收到 429 后立即重试，而不等待 retry_after_ms（--retry-naive）。对开启 overload 故障的端点触发 retry-after-ignored。</translation>
    </message>
    <message>
        <source>Cancel rate</source>
        <translation>取消比例</translation>
    </message>
    <message>
        <source>Requests that send CANCEL after 5 tokens (--cancel-rate). Above 0.5 % triggers cancel-rate.</source>
        <translation>在 5 个 token 后发送 CANCEL 的请求比例（--cancel-rate）。超过 0.5 % 触发 cancel-rate。</translation>
    </message>
    <message>
        <source>Read delay</source>
        <translation>读取延迟</translation>
    </message>
    <message>
        <source>A slow reader: pause this long between reads (--read-delay-ms). With a 64 KiB ring and an endpoint with the burst fault, triggers ring-buffer-stall.</source>
        <translation>慢速读取者：每次读取之间暂停这么久（--read-delay-ms）。配合 64 KiB 环形缓冲区及开启 burst 故障的端点，触发 ring-buffer-stall。</translation>
    </message>
    <message>
        <source>Receive ring</source>
        <translation>接收环形缓冲区</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>The client's receive ring, 64 to 65535 KiB (--ring-kib). A small ring with a read delay triggers ring-buffer-stall.</source>
        <translation>客户端接收环形缓冲区大小，64 至 65535 KiB（--ring-kib）。小缓冲区加读取延迟会触发 ring-buffer-stall。</translation>
    </message>
    <message>
        <source>Hold connections</source>
        <translation>保持连接</translation>
    </message>
    <message>
        <source>Keep the connections open this long after the last request (--hold-connections). Over 300 s triggers connection-duration.</source>
        <translation>最后一个请求结束后连接再保持打开这么久（--hold-connections）。超过 300 秒触发 connection-duration。</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::ComparePage</name>
    <message>
        <source>no worse</source>
        <translation>不更差</translation>
    </message>
    <message>
        <source>worse</source>
        <translation>更差</translation>
    </message>
    <message>
        <source>inconclusive</source>
        <translation>证据不足</translation>
    </message>
    <message>
        <source>Base</source>
        <translation>基准</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Margin</source>
        <translation>容差</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>A saved result (session, bench, analyze, diagnose, a rollout arm) or a capture</source>
        <translation>已保存的结果（会话、压测、分析、诊断、灰度的一组）或抓包文件</translation>
    </message>
    <message>
        <source>How much worse the candidate may be before a figure counts as worse</source>
        <translation>候选比基准差多少以内不算更差</translation>
    </message>
    <message>
        <source>Open a result or a capture</source>
        <translation>打开结果或抓包文件</translation>
    </message>
    <message>
        <source>Results and captures (*.json *.pcap *.pcapng);;All files (*)</source>
        <translation>结果和抓包文件 (*.json *.pcap *.pcapng);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Compare: name a base and a candidate</source>
        <translation>对比：请指定基准和候选</translation>
    </message>
    <message>
        <source>Comparing…</source>
        <translation>正在对比…</translation>
    </message>
    <message>
        <source>Compare: %1</source>
        <translation>对比：%1</translation>
    </message>
    <message>
        <source> points</source>
        <translation> 个百分点</translation>
    </message>
    <message>
        <source> (changed)</source>
        <translation>（已变化）</translation>
    </message>
    <message>
        <source>base</source>
        <translation>基准</translation>
    </message>
    <message>
        <source>candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>%1 (margin %2 %)</source>
        <translation>%1（容差 %2 %）</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>度量</translation>
    </message>
    <message>
        <source>P50 ratio</source>
        <translation>P50 比值</translation>
    </message>
    <message>
        <source>P99 ratio or rate difference [interval]</source>
        <translation>P99 比值或比率差 [区间]</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>分布形状</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Need more</source>
        <translation>还需</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::ConnectionDetailView</name>
    <message>
        <source>Field</source>
        <translation>字段</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>decryption</source>
        <translation>解密</translation>
    </message>
    <message>
        <source>frames</source>
        <translation>帧</translation>
    </message>
    <message>
        <source>%1 (%2 opened)</source>
        <translation>%1（已解开 %2）</translation>
    </message>
    <message>
        <source>negotiation</source>
        <translation>协商</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>被拒绝</translation>
    </message>
    <message>
        <source>client → server</source>
        <translation>客户端 → 服务器</translation>
    </message>
    <message>
        <source>server → client</source>
        <translation>服务器 → 客户端</translation>
    </message>
    <message>
        <source>retransmissions</source>
        <translation>重传</translation>
    </message>
    <message>
        <source>out of order</source>
        <translation>乱序</translation>
    </message>
    <message>
        <source>gaps</source>
        <translation>缺口</translation>
    </message>
    <message>
        <source>%1 (%2 bytes)</source>
        <translation>%1（%2 字节）</translation>
    </message>
    <message>
        <source>zero window</source>
        <translation>零窗口</translation>
    </message>
    <message>
        <source>%1 (%2 ms)</source>
        <translation>%1（%2 ms）</translation>
    </message>
    <message>
        <source>window full</source>
        <translation>窗口满</translation>
    </message>
    <message>
        <source>duplicate ACKs</source>
        <translation>重复 ACK</translation>
    </message>
    <message>
        <source>keep-alives</source>
        <translation>保活</translation>
    </message>
    <message>
        <source>bad checksums</source>
        <translation>校验和错误</translation>
    </message>
    <message>
        <source>closed</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>SSE events</source>
        <translation>SSE 事件</translation>
    </message>
    <message>
        <source>not read further</source>
        <translation>未再读取</translation>
    </message>
    <message>
        <source>profile</source>
        <translation>协议配置</translation>
    </message>
    <message>
        <source>proxy tunnel</source>
        <translation>代理隧道</translation>
    </message>
    <message>
        <source>answer</source>
        <translation>应答</translation>
    </message>
    <message>
        <source>round trip</source>
        <translation>往返时间</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::ConnectionsModel</name>
    <message>
        <source>(loading)</source>
        <translation>（加载中）</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Transport</source>
        <translation>传输</translation>
    </message>
    <message>
        <source>ALPN</source>
        <translation>ALPN</translation>
    </message>
    <message>
        <source>anthro-v1 suite</source>
        <translation>anthro-v1 套件</translation>
    </message>
    <message>
        <source>TLS</source>
        <translation>TLS</translation>
    </message>
    <message>
        <source>Decryption</source>
        <translation>解密</translation>
    </message>
    <message>
        <source>Frames</source>
        <translation>帧数</translation>
    </message>
    <message>
        <source>Retrans.</source>
        <translation>重传</translation>
    </message>
    <message>
        <source>Out of order</source>
        <translation>乱序</translation>
    </message>
    <message>
        <source>Zero window</source>
        <translation>零窗口</translation>
    </message>
    <message>
        <source>Gaps</source>
        <translation>缺口</translation>
    </message>
    <message>
        <source>Bad checksums</source>
        <translation>校验和错误</translation>
    </message>
    <message>
        <source>HTTP requests</source>
        <translation>HTTP 请求</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>协议配置</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::DiagnosisController</name>
    <message>
        <source>A diagnosis is already running; cancel it first.</source>
        <translation>已有诊断在运行；请先取消。</translation>
    </message>
    <message>
        <source>Run the diagnosis once before re-running an item.</source>
        <translation>请先完整运行一次诊断，再单独重跑某项。</translation>
    </message>
    <message>
        <source>Writing the run's capture…</source>
        <translation>正在写入本次运行的抓包…</translation>
    </message>
    <message>
        <source>Capture failed: %1</source>
        <translation>抓包失败：%1</translation>
    </message>
    <message>
        <source>The capture lost %1 packets: some streams may not decode</source>
        <translation>抓包丢失了 %1 个数据包：部分流可能无法解码</translation>
    </message>
    <message>
        <source>Matching the run's connections to its capture…</source>
        <translation>正在将本次运行的连接与抓包对应…</translation>
    </message>
    <message>
        <source>Target: %1</source>
        <translation>目标：%1</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::DiagnosisModel</name>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>checked: %1</source>
        <translation>已检查：%1</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Item</source>
        <translation>检查项</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::DiagnosisPage</name>
    <message>
        <source>Run diagnosis</source>
        <translation>运行诊断</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Capture to diagnose</source>
        <translation>要诊断的抓包</translation>
    </message>
    <message>
        <source>Captures (*.pcap *.pcapng *.cap);;All files (*)</source>
        <translation>抓包文件 (*.pcap *.pcapng *.cap);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>数据来源</translation>
    </message>
    <message>
        <source>Live target</source>
        <translation>实时目标</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <source>Concurrency</source>
        <translation>并发</translation>
    </message>
    <message>
        <source>Capture this run's traffic (evidence jumps to frames)</source>
        <translation>抓取本次运行的流量（证据可跳转到帧）</translation>
    </message>
    <message>
        <source>Capture</source>
        <translation>抓包</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>This machine (OpenSSL, CPU governor, NIC drops, socket buffers)</source>
        <translation>本机（OpenSSL、CPU 调频策略、网卡丢包、套接字缓冲区）</translation>
    </message>
    <message>
        <source>anthro://host:port, anthro+lab://host:port, https://host/v1/messages, lz+lab://host:port</source>
        <translation>anthro://主机:端口、anthro+lab://主机:端口、https://主机/v1/messages、lz+lab://主机:端口</translation>
    </message>
    <message>
        <source>A capture open in the inspector, or a file</source>
        <translation>检查器中已打开的抓包，或一个文件</translation>
    </message>
    <message>
        <source>Pick a capture, or untick the capture source.</source>
        <translation>请选择一个抓包，或取消勾选抓包来源。</translation>
    </message>
    <message>
        <source>Tick a source: a live target, a capture or this machine.</source>
        <translation>请勾选一个来源：实时目标、抓包或本机。</translation>
    </message>
    <message>
        <source>Diagnosis done</source>
        <translation>诊断完成</translation>
    </message>
    <message>
        <source>Diagnosis done; its capture failed, so evidence cannot jump to frames</source>
        <translation>诊断完成；抓包失败，证据无法跳转到帧</translation>
    </message>
    <message>
        <source>Diagnosis done; no connection of the run was found in its capture</source>
        <translation>诊断完成；抓包中找不到本次运行的连接</translation>
    </message>
    <message>
        <source>Diagnosis done; evidence jumps to the frames of %1</source>
        <translation>诊断完成；证据可跳转到 %1 中的帧</translation>
    </message>
    <message>
        <source>Diagnosis cancelled</source>
        <translation>诊断已取消</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>导出报告…</translation>
    </message>
    <message>
        <source>The verdicts, evidence, charts and remedies as HTML, PDF, Markdown or JSON</source>
        <translation>将判定、证据、图表和补救措施导出为 HTML、PDF、Markdown 或 JSON</translation>
    </message>
    <message>
        <source>Checklist</source>
        <translation>检查清单</translation>
    </message>
    <message>
        <source>%1 and %2</source>
        <translation>%1 与 %2</translation>
    </message>
    <message>
        <source>; %1 sessions on %2 targets</source>
        <translation>；%1 会话适用于 %2 目标</translation>
    </message>
    <message>
        <source>Latency diagnosis for anthro-v1 and the HTTP baseline</source>
        <translation>延迟诊断适用于 anthro-v1 与 HTTP 基线</translation>
    </message>
    <message>
        <source>; %1 on the Messages API</source>
        <translation>；%1 适用于 Messages API</translation>
    </message>
    <message>
        <source>%1 of %2 items run, %3 flagged; worst: %4</source>
        <translation>已运行 %1/%2 项，%3 项被标记；最差：%4</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Cancelled: %1 of %2 requests done</source>
        <translation>已取消：已完成 %1/%2 个请求</translation>
    </message>
    <message>
        <source>Diagnosis done; its capture could not be read: %1</source>
        <translation>诊断完成；其抓包无法读取：%1</translation>
    </message>
    <message>
        <source>%1 was measured live without a capture: tick "Capture this run's traffic" and run again to see its frames.</source>
        <translation>%1 是在没有抓包的情况下实时测得的：勾选“抓取本次运行的流量”并重新运行，即可查看其帧。</translation>
    </message>
    <message>
        <source>%1: the run's capture is not ready (still being written, or it failed: see the log).</source>
        <translation>%1：本次运行的抓包尚未就绪（仍在写入，或已失败：见日志）。</translation>
    </message>
    <message>
        <source>%1 is not in the run's capture %2: none of its requests was found there with the same stream and timing.</source>
        <translation>%1 不在本次运行的抓包 %2 中：在其中找不到流号和时间相同的请求。</translation>
    </message>
    <message>
        <source>Thresholds</source>
        <translation>阈值</translation>
    </message>
    <message>
        <source>ttft-tail=800, server-stall=500 (item=value or item.name=value)</source>
        <translation>ttft-tail=800, server-stall=500（项=值 或 项.名称=值）</translation>
    </message>
    <message>
        <source>Your own limits instead of the checklist's: an item's first threshold by its id, another by id.name; the remedies name them</source>
        <translation>用您自己的限值替代检查清单的：按 id 设定某项的第一个阈值，按 id.名称 设定其他阈值；补救建议会提到它们</translation>
    </message>
    <message>
        <source>Thresholds: %1</source>
        <translation>阈值：%1</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::EvidenceChart</name>
    <message>
        <source>count</source>
        <translation>数量</translation>
    </message>
    <message>
        <source>seconds since the request</source>
        <translation>自请求起的秒数</translation>
    </message>
    <message>
        <source>gap before the token (ms)</source>
        <translation>该 token 前的间隔 (ms)</translation>
    </message>
    <message>
        <source>statistic ÷ threshold (interval as a bar)</source>
        <translation>统计量 ÷ 阈值（区间以横条表示）</translation>
    </message>
    <message>
        <source>threshold</source>
        <translation>阈值</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::EvidenceView</name>
    <message>
        <source>Statistic</source>
        <translation>统计量</translation>
    </message>
    <message>
        <source>n</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>Threshold</source>
        <translation>阈值</translation>
    </message>
    <message>
        <source>Measured by</source>
        <translation>测量来源</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Stream</source>
        <translation>流</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Click a stream to see its frames in the capture inspector</source>
        <translation>点击一个流，在抓包检查器中查看它的帧</translation>
    </message>
    <message>
        <source>Manual check</source>
        <translation>人工检查</translation>
    </message>
    <message>
        <source>Checked</source>
        <translation>已检查</translation>
    </message>
    <message>
        <source>What you checked, and what you found</source>
        <translation>检查了什么、发现了什么</translation>
    </message>
    <message>
        <source>Remedy</source>
        <translation>补救措施</translation>
    </message>
    <message>
        <source>Re-run this item</source>
        <translation>单独重跑此项</translation>
    </message>
    <message>
        <source>Run the diagnosis, then pick an item.</source>
        <translation>先运行诊断，再选择一个检查项。</translation>
    </message>
    <message>
        <source>Not run yet.</source>
        <translation>尚未运行。</translation>
    </message>
    <message>
        <source> (%1 more needed, at least %2)</source>
        <translation>（还需 %1 个，至少 %2 个）</translation>
    </message>
    <message>
        <source>Token gaps of stream %1, the longest pause</source>
        <translation>流 %1 的 token 间隔（停顿最长者）</translation>
    </message>
    <message>
        <source>No distribution for this item: its evidence is listed below.</source>
        <translation>此项没有分布图：证据列在下方。</translation>
    </message>
    <message>
        <source>Caused by %1: %2</source>
        <translation>起因：%1：%2</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::FrameDetailView</name>
    <message>
        <source>Field</source>
        <translation>字段</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <source>REQUEST and RESPONSE bodies, HTTP request bodies and SSE event data appear here as JSON (api_key redacted).</source>
        <translation>REQUEST 与 RESPONSE 的消息体、HTTP 请求体和 SSE 事件数据以 JSON 显示在此（api_key 已隐去）。</translation>
    </message>
    <message>
        <source>Frame %1</source>
        <translation>第 %1 帧</translation>
    </message>
    <message>
        <source>%1, %2 bytes, %3</source>
        <translation>%1，%2 字节，%3</translation>
    </message>
    <message>
        <source>Session tracer</source>
        <translation>会话追踪</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::FrameTableModel</name>
    <message>
        <source>(unreadable)</source>
        <translation>（无法读取）</translation>
    </message>
    <message>
        <source>No.</source>
        <translation>序号</translation>
    </message>
    <message>
        <source>Time (s)</source>
        <translation>时间 (s)</translation>
    </message>
    <message>
        <source>Conn</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Direction</source>
        <translation>方向</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Stream</source>
        <translation>流</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token 数</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>*REF*</source>
        <translation>*参考*</translation>
    </message>
    <message>
        <source>Time of day</source>
        <translation>当天时间</translation>
    </message>
    <message>
        <source>Δ previous (s)</source>
        <translation>Δ 上一帧 (s)</translation>
    </message>
    <message>
        <source>Since reference (s)</source>
        <translation>自参考 (s)</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::KeysPanel</name>
    <message>
        <source>Key</source>
        <translation>密钥</translation>
    </message>
    <message>
        <source>Contents</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Key log %1 changed; re-reading it</source>
        <translation>密钥日志 %1 已变化，正在重新读取</translation>
    </message>
    <message>
        <source>Key log files</source>
        <translation>密钥日志文件</translation>
    </message>
    <message>
        <source>%1 ANTHRO_V1, %2 TLS secrets</source>
        <translation>%1 条 ANTHRO_V1，%2 条 TLS 密钥</translation>
    </message>
    <message>
        <source>Server keys (PEM)</source>
        <translation>服务器密钥（PEM）</translation>
    </message>
    <message>
        <source>X25519, public %1…</source>
        <translation>X25519，公钥 %1…</translation>
    </message>
    <message>
        <source>In %1 (DSB)</source>
        <translation>%1 内（DSB）</translation>
    </message>
    <message>
        <source>block %1</source>
        <translation>第 %1 块</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Add key log</source>
        <translation>添加密钥日志</translation>
    </message>
    <message>
        <source>Key logs (*.log *.txt *.keylog);;All files (*)</source>
        <translation>密钥日志 (*.log *.txt *.keylog);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Add server key</source>
        <translation>添加服务器密钥</translation>
    </message>
    <message>
        <source>PEM keys (*.pem);;All files (*)</source>
        <translation>PEM 密钥 (*.pem);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Add key log…</source>
        <translation>添加密钥日志…</translation>
    </message>
    <message>
        <source>Add server key…</source>
        <translation>添加服务器密钥…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Forget the selected key files (the files stay on disk)</source>
        <translation>移除所选密钥文件（文件仍保留在磁盘上）</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::LatencyCharts</name>
    <message>
        <source>No data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>Time to first token</source>
        <translation>首 token 时间</translation>
    </message>
    <message>
        <source>TTFT (ms)</source>
        <translation>TTFT (ms)</translation>
    </message>
    <message>
        <source>Token rate</source>
        <translation>Token 速率</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>tokens/s</translation>
    </message>
    <message>
        <source>Inter-token latency</source>
        <translation>Token 间延迟</translation>
    </message>
    <message>
        <source>ITL (ms)</source>
        <translation>ITL (ms)</translation>
    </message>
    <message>
        <source>samples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>TTFT distribution</source>
        <translation>TTFT 分布</translation>
    </message>
    <message>
        <source>fraction</source>
        <translation>比例</translation>
    </message>
    <message>
        <source>last bar: ≥ %1 ms (%2 samples)</source>
        <translation>最后一柱：≥ %1 ms（%2 个样本）</translation>
    </message>
    <message>
        <source>baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Cannot export to %1: unknown chart</source>
        <translation>无法导出到 %1：未知图表</translation>
    </message>
    <message>
        <source>Cannot export to %1: unknown file type "%2" (use .png, .pdf or .svg)</source>
        <translation>无法导出到 %1：未知文件类型 "%2"（请用 .png、.pdf 或 .svg）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Export chart…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Chart written to %1</source>
        <translation>图表已写入 %1</translation>
    </message>
    <message>
        <source>Show %1</source>
        <translation>显示%1</translation>
    </message>
    <message>
        <source>Clear charts</source>
        <translation>清空图表</translation>
    </message>
    <message>
        <source>Reset view</source>
        <translation>重置视图</translation>
    </message>
    <message>
        <source>since this run's start (s)</source>
        <translation>自本次运行开始 (s)</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>The run the charts show, each from its own start</source>
        <translation>图表显示的运行，各自从其开始计时</translation>
    </message>
    <message>
        <source>The part of the run shown: wheel on a chart zooms, drag pans</source>
        <translation>显示的运行区段：在图表上滚动滚轮缩放，拖动平移</translation>
    </message>
    <message>
        <source>Show the whole run and follow new requests (or double-click a chart)</source>
        <translation>显示整个运行并跟随新请求（或双击图表）</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::LoadController</name>
    <message>
        <source>Load failed: %1</source>
        <translation>压测失败：%1</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::ReportDialog</name>
    <message>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>&amp;Format</source>
        <translation>格式(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>HTML (one file, charts inline)</source>
        <translation>HTML（单个文件，内嵌图表）</translation>
    </message>
    <message>
        <source>PDF</source>
        <translation>PDF</translation>
    </message>
    <message>
        <source>Markdown (charts as PNG files beside it)</source>
        <translation>Markdown（图表另存 PNG）</translation>
    </message>
    <message>
        <source>JSON (the result and the report's sections)</source>
        <translation>JSON（结果及报告各节）</translation>
    </message>
    <message>
        <source>Redact prompts and answers</source>
        <translation>对提示词和回答脱敏</translation>
    </message>
    <message>
        <source>Replace prompt and answer text by its length and SHA-256. API keys, key log secrets and private keys are always redacted.</source>
        <translation>以长度和 SHA-256 替换提示词与回答的文本。API 密钥、密钥日志中的秘密和私钥始终会被脱敏。</translation>
    </message>
    <message>
        <source>The report's language, whatever the interface's</source>
        <translation>报告的语言，与界面语言无关</translation>
    </message>
    <message>
        <source>The report as the PDF lays it out; HTML and Markdown hold the same</source>
        <translation>按 PDF 排版预览报告；HTML 与 Markdown 内容相同</translation>
    </message>
    <message>
        <source>&amp;Save…</source>
        <translation>保存(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>Building the report…</source>
        <translation>正在生成报告…</translation>
    </message>
    <message>
        <source>Preparing the result…</source>
        <translation>正在准备结果…</translation>
    </message>
    <message>
        <source>HTML (*.html);;All files (*)</source>
        <translation>HTML (*.html);;所有文件 (*)</translation>
    </message>
    <message>
        <source>PDF (*.pdf);;All files (*)</source>
        <translation>PDF (*.pdf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Markdown (*.md);;All files (*)</source>
        <translation>Markdown (*.md);;所有文件 (*)</translation>
    </message>
    <message>
        <source>JSON (*.json);;All files (*)</source>
        <translation>JSON (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>The report is not ready yet.</source>
        <translation>报告尚未就绪。</translation>
    </message>
    <message>
        <source>Report not written: %1</source>
        <translation>报告未写入：%1</translation>
    </message>
    <message>
        <source>Written to %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>Report written to %1 (charts in %2_charts beside it)</source>
        <translation>报告已写入 %1（图表在旁边的 %2_charts 中）</translation>
    </message>
    <message>
        <source>Report written to %1</source>
        <translation>报告已写入 %1</translation>
    </message>
    <message>
        <source>%1 — charts: %2, fields redacted: %3</source>
        <translation>%1 — 图表：%2，已脱敏字段：%3</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::RolloutController</name>
    <message>
        <source>A rollout is running: pause or roll it back first.</source>
        <translation>有灰度发布正在运行：请先暂停或回滚。</translation>
    </message>
    <message>
        <source>No rollout is running to pause.</source>
        <translation>没有正在运行的灰度发布可暂停。</translation>
    </message>
    <message>
        <source>No rollout is waiting to continue.</source>
        <translation>没有等待继续的灰度发布。</translation>
    </message>
    <message>
        <source>Stage %1 let through by a person</source>
        <translation>阶段 %1 已由人工放行</translation>
    </message>
    <message>
        <source>No rollout is waiting for more samples.</source>
        <translation>没有等待追加样本的灰度发布。</translation>
    </message>
    <message>
        <source>Stage %1's gates need %L2 more requests; running %L3 (the most one Run more adds)</source>
        <translation>阶段 %1 的门限还需 %L2 个请求；本次运行 %L3 个（“追加运行”一次最多添加的数量）</translation>
    </message>
    <message>
        <source>No rollout is running or waiting to roll back.</source>
        <translation>没有正在运行或等待中的灰度发布可回滚。</translation>
    </message>
    <message>
        <source>The rollout did not run: %1</source>
        <translation>灰度发布未能运行：%1</translation>
    </message>
    <message>
        <source>Rollout passed: %1</source>
        <translation>灰度发布通过：%1</translation>
    </message>
    <message>
        <source>Rollout failed: %1</source>
        <translation>灰度发布失败：%1</translation>
    </message>
    <message>
        <source>Rollout paused: %1</source>
        <translation>灰度发布暂停：%1</translation>
    </message>
    <message>
        <source>Rollout rolled back: %1</source>
        <translation>灰度发布已回滚：%1</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::RolloutModel</name>
    <message>
        <source>route</source>
        <translation>分流</translation>
    </message>
    <message>
        <source>mirror</source>
        <translation>镜像</translation>
    </message>
    <message>
        <source>verify</source>
        <translation>复核</translation>
    </message>
    <message>
        <source>region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>The split of the requests goes to the candidate</source>
        <translation>按分流比例把请求发往候选</translation>
    </message>
    <message>
        <source>Every request goes to the baseline; the candidate gets copies whose answers are unused</source>
        <translation>所有请求都发往基线；候选收到副本，其回答不被使用</translation>
    </message>
    <message>
        <source>Every candidate answer is checked again on the baseline</source>
        <translation>候选的每个回答都在基线上再核对一次</translation>
    </message>
    <message>
        <source>A named region's endpoint takes all of its traffic</source>
        <translation>指定区域的端点承接该区域的全部流量</translation>
    </message>
    <message>
        <source>running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <source>waiting for a person</source>
        <translation>等待人工决定</translation>
    </message>
    <message>
        <source>let through</source>
        <translation>已放行</translation>
    </message>
    <message>
        <source>rolled back</source>
        <translation>已回滚</translation>
    </message>
    <message>
        <source>stage %1 (%2)</source>
        <translation>阶段 %1（%2）</translation>
    </message>
    <message>
        <source>%1: split must be a fraction from 0 to 1, not %2</source>
        <translation>%1：分流比例必须是 0 到 1 之间的小数，而不是 %2</translation>
    </message>
    <message>
        <source>%1: requests must be at least 1</source>
        <translation>%1：请求数至少为 1</translation>
    </message>
    <message>
        <source>%1, gate %2</source>
        <translation>%1，门禁 %2</translation>
    </message>
    <message>
        <source>%1: margin must be 0 or more, not %2</source>
        <translation>%1：容差必须大于等于 0，而不是 %2</translation>
    </message>
    <message>
        <source>%1: threshold must be a rate from 0 to 1, not %2</source>
        <translation>%1：阈值必须是 0 到 1 之间的比率，而不是 %2</translation>
    </message>
    <message>
        <source>%1: threshold must be above 0, not %2</source>
        <translation>%1：阈值必须大于 0，而不是 %2</translation>
    </message>
    <message>
        <source>The fraction of requests the candidate gets: type 0.05 or 5 %</source>
        <translation>发往候选的请求比例：输入 0.05 或 5 %</translation>
    </message>
    <message>
        <source>The page's requests per stage; the plan says %1</source>
        <translation>本页设定的每阶段请求数；计划中为 %1</translation>
    </message>
    <message>
        <source>Rolled back in %1 s; %2 candidate sockets left</source>
        <translation>%1 秒内回滚；候选仍有 %2 个套接字</translation>
    </message>
    <message>
        <source>The candidate may be this much slower: type 0.05 or 5 %</source>
        <translation>候选允许慢这么多：输入 0.05 或 5 %</translation>
    </message>
    <message>
        <source>A rate: type 0.9999 or 99.99 %</source>
        <translation>比率：输入 0.9999 或 99.99 %</translation>
    </message>
    <message>
        <source>An absolute bound, above 0</source>
        <translation>绝对上限，大于 0</translation>
    </message>
    <message>
        <source>one-sided Mann-Whitney p = %1</source>
        <translation>单侧 Mann-Whitney 检验 p = %1</translation>
    </message>
    <message>
        <source>not worse, +%1</source>
        <translation>不劣于基线 +%1</translation>
    </message>
    <message>
        <source>passes</source>
        <translation>须通过</translation>
    </message>
    <message>
        <source>recorded</source>
        <translation>仅记录</translation>
    </message>
    <message>
        <source>need %1 more</source>
        <translation>还需 %1 个</translation>
    </message>
    <message>
        <source>Stage / gate</source>
        <translation>阶段 / 门禁</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Split</source>
        <translation>分流比例</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <source>Statistic</source>
        <translation>统计量</translation>
    </message>
    <message>
        <source>Threshold</source>
        <translation>阈值</translation>
    </message>
    <message>
        <source>n</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>Each end a one-sided 95 % bound: Wilson for a rate, the bootstrap interval for a P99 ratio. The line is the threshold; the shaded side passes.</source>
        <translation>两端各为单侧 95 % 界：比率用 Wilson 区间，P99 比值用 bootstrap 区间。竖线为阈值，着色一侧为通过。</translation>
    </message>
    <message>
        <source>Interval against the threshold</source>
        <translation>区间与阈值</translation>
    </message>
    <message>
        <source>%1: "%2" is not a whole number of requests</source>
        <translation>%1：“%2”不是整数个请求</translation>
    </message>
    <message>
        <source>%1: "%2" is not a number</source>
        <translation>%1：“%2”不是数字</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::RolloutPage</name>
    <message>
        <source>waiting for a person</source>
        <translation>等待人工决定</translation>
    </message>
    <message>
        <source>baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Open rollout plan</source>
        <translation>打开灰度计划</translation>
    </message>
    <message>
        <source>Rollout plans (*.json);;All files (*)</source>
        <translation>灰度计划 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <source>Open plan…</source>
        <translation>打开计划…</translation>
    </message>
    <message>
        <source>Targets</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Requests per stage</source>
        <translation>每阶段请求数</translation>
    </message>
    <message>
        <source>the plan's</source>
        <translation>按计划</translation>
    </message>
    <message>
        <source>Every stage runs this many requests; "the plan's" keeps each stage's own count</source>
        <translation>每个阶段都运行这么多请求；“按计划”则保留各阶段自己的请求数</translation>
    </message>
    <message>
        <source>The path traffic moves from: https://host/v1/messages, anthro://host:port, …</source>
        <translation>流量迁出的路径：https://host/v1/messages、anthro://host:port、…</translation>
    </message>
    <message>
        <source>The path traffic moves to: anthro://host:port, anthro+lab://host:port, …</source>
        <translation>流量迁入的路径：anthro://host:port、anthro+lab://host:port、…</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Run more</source>
        <translation>追加运行</translation>
    </message>
    <message>
        <source>Roll back</source>
        <translation>回滚</translation>
    </message>
    <message>
        <source>Save result…</source>
        <translation>保存结果…</translation>
    </message>
    <message>
        <source>Run the plan from its first stage</source>
        <translation>从第一阶段开始运行计划</translation>
    </message>
    <message>
        <source>Judge the running stage on what it has measured, then wait</source>
        <translation>按已测得的数据判定当前阶段，然后等待</translation>
    </message>
    <message>
        <source>Let the waiting stage through and run the next ones</source>
        <translation>放行等待中的阶段并运行后续阶段</translation>
    </message>
    <message>
        <source>Stop and move every candidate session back to the baseline, timed</source>
        <translation>停止并把所有候选会话切回基线，并计时</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>No built-in rollout plan is called %1</source>
        <translation>没有名为 %1 的内置灰度计划</translation>
    </message>
    <message>
        <source>A rollout is running or waiting: finish or roll it back before opening a plan.</source>
        <translation>有灰度发布正在运行或等待：请先完成或回滚，再打开计划。</translation>
    </message>
    <message>
        <source>The plan did not load: %1</source>
        <translation>计划未能加载：%1</translation>
    </message>
    <message>
        <source>The plan cannot run until these are fixed:</source>
        <translation>修正以下问题后计划才能运行：</translation>
    </message>
    <message>
        <source>Pick a rollout plan first.</source>
        <translation>请先选择灰度计划。</translation>
    </message>
    <message>
        <source>The rollout does not run: %1</source>
        <translation>灰度发布未运行：%1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>A rollout is running: pause or roll it back first.</source>
        <translation>有灰度发布正在运行：请先暂停或回滚。</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <source>Pausing: the requests in flight finish, then the stage is judged…</source>
        <translation>正在暂停：等进行中的请求完成后判定该阶段…</translation>
    </message>
    <message>
        <source>Continuing…</source>
        <translation>继续中…</translation>
    </message>
    <message>
        <source>Running more requests in stage %1…</source>
        <translation>正在阶段 %1 追加请求…</translation>
    </message>
    <message>
        <source>Rolling back…</source>
        <translation>回滚中…</translation>
    </message>
    <message>
        <source>Rollback: %1 candidate sessions switched back in %2 s, %3 candidate sockets left, open descriptors %4 → %5</source>
        <translation>回滚：%1 个候选会话在 %2 秒内切回，候选仍有 %3 个套接字，打开的描述符 %4 → %5</translation>
    </message>
    <message>
        <source>Waiting for a person: Continue, Run more or Roll back</source>
        <translation>等待人工决定：继续、追加运行或回滚</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Save rollout result</source>
        <translation>保存灰度发布结果</translation>
    </message>
    <message>
        <source>JSON (*.json);;All files (*)</source>
        <translation>JSON (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>No rollout result to save yet.</source>
        <translation>还没有可保存的灰度发布结果。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Rollout result written to %1</source>
        <translation>灰度发布结果已写入 %1</translation>
    </message>
    <message>
        <source>A rollout is running or waiting: finish or roll it back before picking another plan.</source>
        <translation>有灰度发布正在运行或等待：请先完成或回滚，再选择其他计划。</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>导出报告…</translation>
    </message>
    <message>
        <source>Every stage's gates, intervals and charts as HTML, PDF, Markdown or JSON</source>
        <translation>将每个阶段的门限、区间和图表导出为 HTML、PDF、Markdown 或 JSON</translation>
    </message>
    <message>
        <source>Run the waiting stage again with as many requests as its gates need (at most %L1), pooling its samples, and judge it again</source>
        <translation>按门限所需的请求数（最多 %L1 个）再次运行等待中的阶段，合并其样本并重新判定</translation>
    </message>
    <message>
        <source>Running %L1 more requests in stage %2…</source>
        <translation>正在阶段 %2 追加 %L1 个请求…</translation>
    </message>
    <message>
        <source>Roll back the rollout now?</source>
        <translation>现在回滚本次发布吗？</translation>
    </message>
    <message>
        <source>Every candidate session moves back to the baseline, and the rollout ends rolled back.</source>
        <translation>所有候选会话都将切回基线，发布以“已回滚”结束。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::SessionController</name>
    <message>
        <source>Capturing on lo…</source>
        <translation>正在 lo 上抓包…</translation>
    </message>
    <message>
        <source>A session is already running; cancel it first.</source>
        <translation>已有会话在运行，请先取消。</translation>
    </message>
    <message>
        <source>Session: %1</source>
        <translation>会话：%1</translation>
    </message>
    <message>
        <source>Session failed: %1</source>
        <translation>会话失败：%1</translation>
    </message>
    <message>
        <source>Capture failed: %1</source>
        <translation>抓包失败：%1</translation>
    </message>
    <message>
        <source>The capture %1 holds no packets (the session sent nothing on lo): not opened</source>
        <translation>抓包 %1 中没有数据包（会话未在 lo 上发送任何数据）：不打开</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::SessionPanel</name>
    <message>
        <source>Stream</source>
        <translation>流</translation>
    </message>
    <message>
        <source>Capture this session's traffic into the inspector</source>
        <translation>抓取本会话的流量并在检查器中打开</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Run load</source>
        <translation>运行压测</translation>
    </message>
    <message>
        <source>No API key</source>
        <translation>不用 API 密钥</translation>
    </message>
    <message>
        <source>From $ANTHROPIC_API_KEY</source>
        <translation>取自 $ANTHROPIC_API_KEY</translation>
    </message>
    <message>
        <source>From $OPENAI_API_KEY</source>
        <translation>取自 $OPENAI_API_KEY</translation>
    </message>
    <message>
        <source>API key (kept in memory only, never saved)</source>
        <translation>API 密钥（仅保存在内存中，从不写盘）</translation>
    </message>
    <message>
        <source>System prompt (optional)</source>
        <translation>系统提示（可选）</translation>
    </message>
    <message>
        <source>Explain tail latency in one paragraph.</source>
        <translation>用一段话解释尾延迟。</translation>
    </message>
    <message>
        <source>× </source>
        <translation>× </translation>
    </message>
    <message>
        <source>Requests on the same connection, one after another</source>
        <translation>同一连接上依次发送的请求数</translation>
    </message>
    <message>
        <source>The answer streams here.</source>
        <translation>回答会在此流式显示。</translation>
    </message>
    <message>
        <source> req/s</source>
        <translation> 请求/秒</translation>
    </message>
    <message>
        <source>as baseline</source>
        <translation>作为基线</translation>
    </message>
    <message>
        <source>as candidate</source>
        <translation>作为候选</translation>
    </message>
    <message>
        <source>baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>max_tokens</source>
        <translation>max_tokens</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>压测</translation>
    </message>
    <message>
        <source>Rate</source>
        <translation>速率</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <source>A session is already running; cancel it first.</source>
        <translation>已有会话在运行，请先取消。</translation>
    </message>
    <message>
        <source>ANTHROPIC_API_KEY is not set in the environment; sending without a key.</source>
        <translation>环境变量中没有 ANTHROPIC_API_KEY，将不带密钥发送。</translation>
    </message>
    <message>
        <source>Session: %1</source>
        <translation>会话：%1</translation>
    </message>
    <message>
        <source>A load is already running.</source>
        <translation>已有压测在运行。</translation>
    </message>
    <message>
        <source>Stream %1 was not captured: tick the capture option to see its frames.</source>
        <translation>流 %1 未被抓包：勾选抓包选项后才能查看它的帧。</translation>
    </message>
    <message>
        <source>Stop load</source>
        <translation>停止压测</translation>
    </message>
    <message>
        <source>Diagnose this target…</source>
        <translation>诊断此目标…</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>导出报告…</translation>
    </message>
    <message>
        <source>The last session or load (whichever ended last) as HTML, PDF, Markdown or JSON</source>
        <translation>将最近结束的会话或压测导出为 HTML、PDF、Markdown 或 JSON</translation>
    </message>
    <message>
        <source>Closed loop</source>
        <translation>闭环</translation>
    </message>
    <message>
        <source>Open loop, constant arrivals</source>
        <translation>开环，恒定到达</translation>
    </message>
    <message>
        <source>Open loop, Poisson arrivals</source>
        <translation>开环，泊松到达</translation>
    </message>
    <message>
        <source>Closed loop: each connection sends its next request when the last one ends. Open loop: requests arrive at the rate set whatever the answers' pace, evenly spaced or as a Poisson process.</source>
        <translation>闭环：每个连接在上一个请求结束后发送下一个。开环：请求按设定速率到达，与回答快慢无关，均匀间隔或按泊松过程到达。</translation>
    </message>
    <message>
        <source>Connections, each with one request at a time (closed loop)</source>
        <translation>连接数，每个连接同一时刻只有一个请求（闭环）</translation>
    </message>
    <message>
        <source>Requests started per second (open loop)</source>
        <translation>每秒发起的请求数（开环）</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Stop after this many requests (retries not counted)</source>
        <translation>达到此请求数后停止（不计重试）</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Stop starting requests after this many seconds</source>
        <translation>经过此秒数后不再发起新请求</translation>
    </message>
    <message>
        <source>ttft:300,tpot:40,e2e:2000 (ms)</source>
        <translation>ttft:300,tpot:40,e2e:2000（毫秒）</translation>
    </message>
    <message>
        <source>Service-level objectives in milliseconds: requests meeting all of them count towards goodput</source>
        <translation>以毫秒计的服务等级目标：全部满足的请求计入有效吞吐（goodput）</translation>
    </message>
    <message>
        <source>Export records…</source>
        <translation>导出请求记录…</translation>
    </message>
    <message>
        <source>The last load's per-request records as JSONL, or CSV</source>
        <translation>最近一次压测的逐请求记录，JSONL 或 CSV 格式</translation>
    </message>
    <message>
        <source>Clear charts</source>
        <translation>清空图表</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>SLO</source>
        <translation>SLO</translation>
    </message>
    <message>
        <source>load request %1</source>
        <translation>压测请求 %1</translation>
    </message>
    <message>
        <source>stream %1</source>
        <translation>流 %1</translation>
    </message>
    <message>
        <source>, cancel latency %1</source>
        <translation>，取消延迟 %1</translation>
    </message>
    <message>
        <source>Set a number of requests or a duration for the load.</source>
        <translation>请为压测设置请求数或时长。</translation>
    </message>
    <message>
        <source>SLO: %1</source>
        <translation>SLO：%1</translation>
    </message>
    <message>
        <source>%1 of %2 requests done</source>
        <translation>已完成 %1/%2 个请求</translation>
    </message>
    <message>
        <source>%1 requests done</source>
        <translation>已完成 %1 个请求</translation>
    </message>
    <message>
        <source>%1, %2 errors, %3 tokens/s, %4 s</source>
        <translation>%1，%2 个错误，%3 tokens/s，%4 秒</translation>
    </message>
    <message>
        <source>Stopping: waiting for the requests in flight… (%1)</source>
        <translation>正在停止：等待进行中的请求…（%1）</translation>
    </message>
    <message>
        <source>, %1 errors</source>
        <translation>，%1 个错误</translation>
    </message>
    <message>
        <source>, goodput %1 req/s within the SLO</source>
        <translation>，满足 SLO 的有效吞吐 %1 请求/秒</translation>
    </message>
    <message>
        <source>Load failed: %1</source>
        <translation>压测失败：%1</translation>
    </message>
    <message>
        <source>No load has ended yet: nothing to export.</source>
        <translation>尚无已结束的压测：没有可导出的内容。</translation>
    </message>
    <message>
        <source>Records not written to %1: %2</source>
        <translation>请求记录未写入 %1：%2</translation>
    </message>
    <message numerus="yes">
        <source>%n request record(s) written to %1</source>
        <translation><numerusform>已将 %n 条请求记录写入 %1</numerusform></translation>
    </message>
    <message>
        <source>Export records</source>
        <translation>导出请求记录</translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl);;CSV (*.csv)</source>
        <translation>JSON Lines (*.jsonl);;CSV (*.csv)</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Typed here</source>
        <translation>在此输入</translation>
    </message>
    <message>
        <source>API key, never saved</source>
        <translation>API 密钥，从不保存</translation>
    </message>
    <message>
        <source>HTTP/2</source>
        <translation>HTTP/2</translation>
    </message>
    <message>
        <source>Offer ALPN h2 first on an https:// target: each request a stream of one connection when the server selects it, HTTP/1.1 otherwise</source>
        <translation>对 https:// 目标优先提供 ALPN h2：服务器选中时每个请求是同一连接上的一个流，否则使用 HTTP/1.1</translation>
    </message>
    <message>
        <source>Token ids</source>
        <translation>Token ID</translation>
    </message>
    <message>
        <source>Ask a Messages API target for the token stream: u32 token ids named through GET /v1/vocab; TTFT is the first id, the token rate ids per second</source>
        <translation>向 Messages API 目标请求 token 流：u32 token ID 通过 GET /v1/vocab 映射为文本；TTFT 为首个 ID，token 速率为每秒 ID 数</translation>
    </message>
    <message>
        <source>anthro://host:port, anthro+lab://host:port, https://host/v1/messages, https://host/v1/chat/completions</source>
        <translation>anthro://主机:端口、anthro+lab://主机:端口、https://主机/v1/messages、https://主机/v1/chat/completions</translation>
    </message>
    <message>
        <source>%1://host:port</source>
        <translation>%1://主机:端口</translation>
    </message>
    <message>
        <source>%1 or %2</source>
        <translation>%1或 %2</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>A load runs anthro-v1 and HTTP targets; a %1 target runs one session at a time (Send), or many from the Diagnosis page.</source>
        <translation>负载只针对 anthro-v1 和 HTTP 目标；%1 目标一次运行一个会话（发送），或在诊断页运行多个。</translation>
    </message>
    <message>
        <source>Headers</source>
        <translation>请求头</translation>
    </message>
    <message>
        <source>HTTP targets: one NAME: VALUE a line (optional)</source>
        <translation>HTTP 目标：每行一个“名称: 值”（可选）</translation>
    </message>
    <message>
        <source>Headers, line %1: %2</source>
        <translation>请求头第 %1 行：%2</translation>
    </message>
    <message>
        <source>more than %1 headers</source>
        <translation>超过 %1 个请求头</translation>
    </message>
    <message>
        <source>Request headers of HTTP targets, one NAME: VALUE a line: anthropic-beta, a gateway's routing or tenant header; one the client sends itself (anthropic-version) is replaced. A secret: NAME: $VARIABLE takes its value from the environment. Keys go in the API key field.</source>
        <translation>HTTP 目标的请求头，每行一个“名称: 值”：anthropic-beta、网关的路由或租户头；与客户端自带的同名头（anthropic-version）会被替换。机密值：写成“名称: $变量名”即从环境变量读取。密钥请填在“API 密钥”一栏。</translation>
    </message>
    <message>
        <source>ANTHROPIC_API_KEY for anthro-v1 and Messages API targets, OPENAI_API_KEY for chat completions, when set</source>
        <translation>anthro-v1 和 Messages API 目标用 ANTHROPIC_API_KEY，chat completions 目标用 OPENAI_API_KEY（已设置时）</translation>
    </message>
    <message>
        <source>Environment, by target</source>
        <translation>环境变量（按目标）</translation>
    </message>
    <message>
        <source>%1 tokens/s, TTFT p50 %2 ms, p99 %3 ms</source>
        <translation>%1 tokens/s，TTFT p50 %2 ms，p99 %3 ms</translation>
    </message>
    <message>
        <source>%1 requests in %2 s, %3</source>
        <translation>%1 个请求，用时 %2 秒，%3</translation>
    </message>
    <message>
        <source>Cancelled after %1 s: %2, %3</source>
        <translation>%1 秒后已取消：%2，%3</translation>
    </message>
    <message>
        <source>no end seen</source>
        <translation>未见结束</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>connection error</source>
        <translation>连接错误</translation>
    </message>
    <message>
        <source>unreadable reply</source>
        <translation>回复无法读取</translation>
    </message>
    <message>
        <source>connection closed</source>
        <translation>连接已关闭</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>send failed</source>
        <translation>发送失败</translation>
    </message>
    <message>
        <source>closed by the client</source>
        <translation>客户端关闭</translation>
    </message>
    <message>
        <source>closed to cancel</source>
        <translation>为取消而关闭</translation>
    </message>
    <message>
        <source>%1: TTFT %2, E2E %3, %4 tokens, mean ITL %5</source>
        <translation>%1：TTFT %2，端到端 %3，%4 个 token，平均 ITL %5</translation>
    </message>
    <message>
        <source>, stop %1</source>
        <translation>，结束原因 %1</translation>
    </message>
    <message>
        <source>CA certificate</source>
        <translation>CA 证书</translation>
    </message>
    <message>
        <source>PEM certificates (*.pem *.crt);;All files (*)</source>
        <translation>PEM 证书 (*.pem *.crt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>CA file</source>
        <translation>CA 文件</translation>
    </message>
    <message>
        <source>System store</source>
        <translation>系统证书库</translation>
    </message>
    <message>
        <source>The CA certificate (PEM) a TLS server's certificate must be signed by; empty: the system's store and the embedded endpoint's certificate</source>
        <translation>TLS 服务器证书必须由其签发的 CA 证书（PEM）；留空：使用系统证书库和内嵌端点的证书</translation>
    </message>
    <message>
        <source>Pick a CA certificate file</source>
        <translation>选择 CA 证书文件</translation>
    </message>
    <message>
        <source>Insecure</source>
        <translation>不校验</translation>
    </message>
    <message>
        <source>Accept any certificate: no check of who the server is</source>
        <translation>接受任何证书：不校验服务器身份</translation>
    </message>
    <message>
        <source>send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>load</source>
        <translation>负载</translation>
    </message>
    <message>
        <source>Target: %1</source>
        <translation>目标：%1</translation>
    </message>
    <message>
        <source>error %1</source>
        <translation>错误 %1</translation>
    </message>
    <message>
        <source>connection error %1</source>
        <translation>连接错误 %1</translation>
    </message>
</context>
<context>
    <name>anthro::widgets::VerdictChipDelegate</name>
    <message>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>warn</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>fail</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>inconclusive</source>
        <translation>证据不足</translation>
    </message>
    <message>
        <source>manual</source>
        <translation>人工</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>anthro-v1 Workbench: live sessions, captures, latency charts.</source>
        <translation>anthro-v1 工作台：实时会话、抓包、延迟图表。</translation>
    </message>
    <message>
        <source>NSS key log with ANTHRO_V1 lines (repeatable).</source>
        <translation>含 ANTHRO_V1 行的 NSS 密钥日志（可重复）。</translation>
    </message>
    <message>
        <source>Server static X25519 key, PEM (repeatable).</source>
        <translation>服务器静态 X25519 密钥，PEM 格式（可重复）。</translation>
    </message>
    <message>
        <source>Take the README screenshots into DIR and exit.</source>
        <translation>将 README 截图保存到 DIR 后退出。</translation>
    </message>
    <message>
        <source>The spec's vectors directory (for --screenshots).</source>
        <translation>规范测试向量目录（用于 --screenshots）。</translation>
    </message>
    <message>
        <source>A pcap or pcapng file to open.</source>
        <translation>要打开的 pcap 或 pcapng 文件。</translation>
    </message>
    <message>
        <source>A fault of the embedded endpoint, as `anthro-wb endpoint --fault` (repeatable).</source>
        <translation>内置端点的故障，同 `anthro-wb endpoint --fault`（可重复）。</translation>
    </message>
    <message>
        <source>Capture a session and a Start capture run into DIR, then exit.</source>
        <translation>将一次会话抓包和一次“开始抓包”抓包写入 DIR，然后退出。</translation>
    </message>
</context>
</TS>