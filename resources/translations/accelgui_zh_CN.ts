<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>BenchmarkProcess</name>
        <message>
            <source>the benchmark reported an error</source>
            <translation>基准测试报告了一个错误</translation>
        </message>
        <message>
            <source>could not start the benchmark process ({program}): {error}</source>
            <translation>无法启动基准测试进程（{program}）：{error}</translation>
        </message>
        <message>
            <source>the benchmark process crashed</source>
            <translation>基准测试进程崩溃了</translation>
        </message>
        <message>
            <source>the benchmark process stopped (exit code {code}) without a result</source>
            <translation>基准测试进程已退出（退出码 {code}），没有给出结果</translation>
        </message>
    </context>
    <context>
        <name>BenchmarksView</name>
        <message>
            <source>Benchmarks</source>
            <translation>基准测试</translation>
        </message>
        <message>
            <source>Measured on this machine in a separate process: memory bandwidth (STREAM), floating-point throughput (FMA), cache behaviour. Quick takes a few seconds; full takes longer and is more precise. The window stays usable while it runs.</source>
            <translation>在本机的独立进程中实测：内存带宽（STREAM）、浮点吞吐（FMA）和缓存表现。快速模式只需几秒；完整模式耗时更长、结果更精确。运行期间窗口照常可用。</translation>
        </message>
        <message>
            <source>Quick</source>
            <translation>快速</translation>
        </message>
        <message>
            <source>Full</source>
            <translation>完整</translation>
        </message>
        <message>
            <source>Run benchmark</source>
            <translation>运行基准测试</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>idle</source>
            <translation>空闲</translation>
        </message>
        <message>
            <source>Starting the benchmark process…</source>
            <translation>正在启动基准测试进程…</translation>
        </message>
        <message>
            <source>Stage: {stage}</source>
            <translation>阶段：{stage}</translation>
        </message>
        <message>
            <source>Finished. The results below are part of the report now.</source>
            <translation>已完成。下面的结果已写入报告。</translation>
        </message>
        <message>
            <source>cancelled</source>
            <translation>已取消</translation>
        </message>
        <message>
            <source>Benchmark cancelled.</source>
            <translation>基准测试已取消。</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>The benchmark did not complete: {message}
The rest of the app is unaffected; you can run it again.</source>
            <translation>基准测试未能完成：{message}
应用的其他部分不受影响，可以重新运行。</translation>
        </message>
        <message>
            <source>No measurements yet. Press Run benchmark (Ctrl+B) to measure this machine.</source>
            <translation>还没有测量结果。点击“运行基准测试”（Ctrl+B）来测量这台机器。</translation>
        </message>
        <message>
            <source>This report carries no benchmark results.</source>
            <translation>这份报告不含基准测试结果。</translation>
        </message>
        <message>
            <source>The benchmark recorded in this report failed: {error}</source>
            <translation>这份报告中记录的基准测试失败了：{error}</translation>
        </message>
        <message>
            <source>{n} points</source>
            <translation>{n} 个点</translation>
        </message>
        <message>
            <source>{n} features</source>
            <translation>{n} 项特性</translation>
        </message>
        <message>
            <source>Cache sweep</source>
            <translation>缓存扫描</translation>
        </message>
        <message>
            <source>Roofline</source>
            <translation>Roofline 模型</translation>
        </message>
        <message>
            <source>Measured vs theoretical</source>
            <translation>实测与理论值对比</translation>
        </message>
        <message>
            <source>All figures</source>
            <translation>全部数据</translation>
        </message>
        <message>
            <source>Measuring… the plots appear here when the run finishes.</source>
            <translation>正在测量…运行结束后图表会显示在这里。</translation>
        </message>
        <message>
            <source>No cache sweep in these results (the full benchmark measures it).</source>
            <translation>这些结果中没有缓存扫描（完整模式会测量）。</translation>
        </message>
        <message>
            <source>working set</source>
            <translation>工作集大小</translation>
        </message>
        <message>
            <source>bandwidth (GB/s)</source>
            <translation>带宽（GB/s）</translation>
        </message>
        <message>
            <source>measured</source>
            <translation>实测</translation>
        </message>
        <message>
            <source>Bandwidth of one core as the working set grows: it steps down where the data stops fitting in each cache level (dashed lines).</source>
            <translation>单个核心的带宽随工作集增大的变化：数据装不进某一级缓存（虚线）时，带宽会阶梯式下降。</translation>
        </message>
        <message>
            <source>Not enough figures for a roofline.</source>
            <translation>数据不足，无法绘制 Roofline 图。</translation>
        </message>
        <message>
            <source>arithmetic intensity (flop/byte)</source>
            <translation>算术强度（flop/字节）</translation>
        </message>
        <message>
            <source>performance (GFLOP/s)</source>
            <translation>性能（GFLOP/s）</translation>
        </message>
        <message>
            <source>theoretical roof</source>
            <translation>理论上限</translation>
        </message>
        <message>
            <source>measured roof</source>
            <translation>实测上限</translation>
        </message>
        <message>
            <source>Measured kernels (dots) under the roofs: memory-bound on the sloped part, compute-bound on the flat part.</source>
            <translation>实测内核（圆点）位于上限线之下：斜线部分受内存带宽限制，平直部分受计算能力限制。</translation>
        </message>
        <message>
            <source>CPU FP64
all cores</source>
            <translation>CPU FP64
全部核心</translation>
        </message>
        <message>
            <source>CPU FP64
one core</source>
            <translation>CPU FP64
单核</translation>
        </message>
        <message>
            <source>CPU FP32
all cores</source>
            <translation>CPU FP32
全部核心</translation>
        </message>
        <message>
            <source>Memory
(STREAM triad)</source>
            <translation>内存
（STREAM triad）</translation>
        </message>
        <message>
            <source>GPU memory</source>
            <translation>GPU 显存</translation>
        </message>
        <message>
            <source>(one device)</source>
            <translation>（单卡）</translation>
        </message>
        <message>
            <source>GPU FP32</source>
            <translation>GPU FP32</translation>
        </message>
        <message>
            <source>No throughput figures in these results.</source>
            <translation>这些结果中没有吞吐数据。</translation>
        </message>
        <message>
            <source>{what}: {value} {unit} measured (no theoretical peak known)</source>
            <translation>{what}：实测 {value} {unit}（理论峰值未知）</translation>
        </message>
        <message>
            <source>% of theoretical peak</source>
            <translation>占理论峰值的百分比</translation>
        </message>
        <message>
            <source>Blue: measured, as a percentage of the theoretical peak (grey).</source>
            <translation>蓝色：实测值，以理论峰值（灰色）的百分比表示。</translation>
        </message>
        <message>
            <source>Blue: measured. Grey: theoretical peak (100%).</source>
            <translation>蓝色：实测值。灰色：理论峰值（100%）。</translation>
        </message>
        <message>
            <source>Figure</source>
            <translation>指标</translation>
        </message>
        <message>
            <source>Value</source>
            <translation>数值</translation>
        </message>
    </context>
    <context>
        <name>ReportsView</name>
        <message>
            <source>Reports</source>
            <translation>报告</translation>
        </message>
        <message>
            <source>Shown now</source>
            <translation>当前显示</translation>
        </message>
        <message>
            <source>Open report…</source>
            <translation>打开报告…</translation>
        </message>
        <message>
            <source>Show a saved JSON report, e.g. from another machine (Ctrl+O)</source>
            <translation>显示已保存的 JSON 报告，例如来自另一台机器的（Ctrl+O）</translation>
        </message>
        <message>
            <source>Show this machine</source>
            <translation>显示本机</translation>
        </message>
        <message>
            <source>Compare two reports</source>
            <translation>比较两份报告</translation>
        </message>
        <message>
            <source>Pick two saved JSON reports (accelgui --probe --output FILE, or Export → JSON). Leave the first one empty to compare the report shown now.</source>
            <translation>选择两份已保存的 JSON 报告（accelgui --probe --output FILE，或“导出 → JSON”）。第一项留空则使用当前显示的报告。</translation>
        </message>
        <message>
            <source>Report A</source>
            <translation>报告 A</translation>
        </message>
        <message>
            <source>Report B</source>
            <translation>报告 B</translation>
        </message>
        <message>
            <source>(the report shown now)</source>
            <translation>（当前显示的报告）</translation>
        </message>
        <message>
            <source>path to a .json report</source>
            <translation>.json 报告的路径</translation>
        </message>
        <message>
            <source>Browse…</source>
            <translation>浏览…</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>比较</translation>
        </message>
        <message>
            <source>Section</source>
            <translation>部分</translation>
        </message>
        <message>
            <source>Field</source>
            <translation>字段</translation>
        </message>
        <message>
            <source>A</source>
            <translation>A</translation>
        </message>
        <message>
            <source>B</source>
            <translation>B</translation>
        </message>
        <message>
            <source>Change</source>
            <translation>变化</translation>
        </message>
        <message>
            <source>Nothing yet: this machine is being probed.</source>
            <translation>暂无内容：正在检测这台机器。</translation>
        </message>
        <message>
            <source>This machine, probed {when}.</source>
            <translation>本机，检测于 {when}。</translation>
        </message>
        <message>
            <source>Saved report {path} (created {when}, host {host}).</source>
            <translation>已保存的报告 {path}（生成于 {when}，主机 {host}）。</translation>
        </message>
        <message>
            <source>Choose a report</source>
            <translation>选择报告</translation>
        </message>
        <message>
            <source>accelgui reports (*.json);;All files (*)</source>
            <translation>accelgui 报告 (*.json);;所有文件 (*)</translation>
        </message>
        <message>
            <source>Choose report B (and A, or let A be the report shown now).</source>
            <translation>请选择报告 B（以及报告 A，或让 A 使用当前显示的报告）。</translation>
        </message>
        <message>
            <source>{n} differences between {a} and {b}.</source>
            <translation>{a} 与 {b} 之间有 {n} 处不同。</translation>
        </message>
        <message>
            <source>No differences that matter between {a} and {b}.</source>
            <translation>{a} 与 {b} 之间没有值得注意的差异。</translation>
        </message>
        <message>
            <source>the report shown now</source>
            <translation>当前显示的报告</translation>
        </message>
        <message>
            <source>only in B</source>
            <translation>仅 B 有</translation>
        </message>
        <message>
            <source>only in A</source>
            <translation>仅 A 有</translation>
        </message>
        <message>
            <source>What</source>
            <translation>项目</translation>
        </message>
        <message>
            <source>Show only the differences that matter</source>
            <translation>只显示重要差异</translation>
        </message>
        <message>
            <source>Show all, {n} more</source>
            <translation>显示全部（另有 {n} 项）</translation>
        </message>
        <message>
            <source>{n} differences between {a} and {b}, {major} that matter.</source>
            <translation>{a} 与 {b} 之间有 {n} 处差异，其中 {major} 处重要。</translation>
        </message>
        <message>
            <source>changed</source>
            <translation>改变</translation>
        </message>
    </context>
    <context>
        <name>ExportDialog</name>
        <message>
            <source>Export report</source>
            <translation>导出报告</translation>
        </message>
        <message>
            <source>Save the report shown now in a format to share or to feed other tools. Nothing is sent anywhere.</source>
            <translation>把当前显示的报告保存为便于分享或供其他工具使用的格式。不会向任何地方发送数据。</translation>
        </message>
        <message>
            <source>JSON (the full report, machine-readable)</source>
            <translation>JSON（完整报告，便于程序读取）</translation>
        </message>
        <message>
            <source>Markdown (for forums and issue trackers)</source>
            <translation>Markdown（适合论坛和问题跟踪系统）</translation>
        </message>
        <message>
            <source>HTML (one self-contained page, printable)</source>
            <translation>HTML（单个自包含网页，可打印）</translation>
        </message>
        <message>
            <source>PDF</source>
            <translation>PDF</translation>
        </message>
        <message>
            <source>Plain text</source>
            <translation>纯文本</translation>
        </message>
        <message>
            <source>Prometheus textfile (node_exporter)</source>
            <translation>Prometheus 文本文件（node_exporter）</translation>
        </message>
        <message>
            <source>Kubernetes Node Feature Discovery labels</source>
            <translation>Kubernetes Node Feature Discovery 标签</translation>
        </message>
        <message>
            <source>Format:</source>
            <translation>格式：</translation>
        </message>
        <message>
            <source>File:</source>
            <translation>文件：</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>选择…</translation>
        </message>
        <message>
            <source>Redact identifying details</source>
            <translation>隐去可识别身份的信息</translation>
        </message>
        <message>
            <source>Removes the host name, serial numbers, UUIDs, MAC addresses and user names from the exported file.</source>
            <translation>从导出的文件中去掉主机名、序列号、UUID、MAC 地址和用户名。</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>所有文件 (*)</translation>
        </message>
        <message>
            <source>Choose a file to write.</source>
            <translation>请选择要写入的文件。</translation>
        </message>
        <message>
            <source>The {fmt} exporter is not available in this installation ({error}).</source>
            <translation>当前安装中没有 {fmt} 导出器（{error}）。</translation>
        </message>
        <message>
            <source>Could not export: {error}</source>
            <translation>导出失败：{error}</translation>
        </message>
    </context>
    <context>
        <name>GoalPicker</name>
        <message>
            <source>No particular goal</source>
            <translation>没有特定目标</translation>
        </message>
        <message>
            <source>Learning goal</source>
            <translation>学习目标</translation>
        </message>
        <message>
            <source>What you want to learn: the next steps are ranked for it. Saved with your progress, like accelgui --goal.</source>
            <translation>你想学什么：下一步按它排序。与学习进度一起保存，与 accelgui --goal 相同。</translation>
        </message>
        <message>
            <source>My &amp;goal:</source>
            <translation>我的目标(&amp;G)：</translation>
        </message>
    </context>
    <context>
        <name>HardwareView</name>
        <message>
            <source>Hardware and probe results</source>
            <translation>硬件与检测结果</translation>
        </message>
        <message>
            <source>Filter (e.g. avx512, driver, cache)</source>
            <translation>筛选（例如 avx512、driver、cache）</translation>
        </message>
        <message>
            <source>Copy report as JSON</source>
            <translation>以 JSON 复制报告</translation>
        </message>
        <message>
            <source>Copy selected</source>
            <translation>复制所选</translation>
        </message>
        <message>
            <source>Collapse all</source>
            <translation>全部折叠</translation>
        </message>
        <message>
            <source>Expand all</source>
            <translation>全部展开</translation>
        </message>
        <message>
            <source>Item</source>
            <translation>项目</translation>
        </message>
        <message>
            <source>Value</source>
            <translation>数值</translation>
        </message>
        <message>
            <source>Probing this machine…</source>
            <translation>正在检测这台机器…</translation>
        </message>
        <message>
            <source>{ok} of {n} probes answered · report created {when}</source>
            <translation>{n} 项检测中 {ok} 项有结果 · 报告生成于 {when}</translation>
        </message>
        <message>
            <source>Platform</source>
            <translation>平台</translation>
        </message>
        <message>
            <source>CPU</source>
            <translation>CPU</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>内存</translation>
        </message>
        <message>
            <source>Accelerators</source>
            <translation>加速器</translation>
        </message>
        <message>
            <source>Software</source>
            <translation>软件</translation>
        </message>
        <message>
            <source>Benchmarks</source>
            <translation>基准测试</translation>
        </message>
        <message>
            <source>Estimates</source>
            <translation>估算</translation>
        </message>
        <message>
            <source>Routes</source>
            <translation>学习路线</translation>
        </message>
        <message>
            <source>Probes</source>
            <translation>检测项</translation>
        </message>
        <message>
            <source>error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>reason</source>
            <translation>原因</translation>
        </message>
        <message>
            <source>{n} probes, {bad} with problems</source>
            <translation>{n} 项检测，{bad} 项有问题</translation>
        </message>
        <message>
            <source>{n} probes, all answered</source>
            <translation>{n} 项检测，全部有结果</translation>
        </message>
        <message>
            <source>{n} found</source>
            <translation>找到 {n} 个</translation>
        </message>
        <message>
            <source>none found</source>
            <translation>未找到</translation>
        </message>
        <message>
            <source>… ({n} in all)</source>
            <translation>…（共 {n} 项）</translation>
        </message>
        <message>
            <source>{n} items</source>
            <translation>{n} 项</translation>
        </message>
        <message>
            <source>The whole report was copied to the clipboard as JSON.</source>
            <translation>整份报告已以 JSON 格式复制到剪贴板。</translation>
        </message>
        <message>
            <source>Select a row first.</source>
            <translation>请先选择一行。</translation>
        </message>
        <message>
            <source>Copied {n} rows.</source>
            <translation>已复制 {n} 行。</translation>
        </message>
        <message>
            <source>Filter</source>
            <translation>筛选</translation>
        </message>
        <message>
            <source>Details</source>
            <translation>详情</translation>
        </message>
        <message>
            <source>Pages</source>
            <translation>页面</translation>
        </message>
        <message>
            <source>Hardware</source>
            <translation>硬件</translation>
        </message>
        <message>
            <source>Copy report as JSON (redacted)</source>
            <translation>复制报告为 JSON（已隐去身份信息）</translation>
        </message>
        <message>
            <source>The whole report was copied to the clipboard as JSON (redacted).</source>
            <translation>整份报告已以 JSON 形式复制到剪贴板（已隐去身份信息）。</translation>
        </message>
        <message>
            <source>{source} · {ok} of {n} probes answered</source>
            <translation>{source} · {n} 项探测中 {ok} 项有结果</translation>
        </message>
        <message>
            <source>Fix: {fix}</source>
            <translation>解决办法：{fix}</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <source>Overview</source>
            <translation>概览</translation>
        </message>
        <message>
            <source>Hardware</source>
            <translation>硬件</translation>
        </message>
        <message>
            <source>Benchmarks</source>
            <translation>基准测试</translation>
        </message>
        <message>
            <source>Routes</source>
            <translation>学习路线</translation>
        </message>
        <message>
            <source>Reports</source>
            <translation>报告</translation>
        </message>
        <message>
            <source>Run benchmark (quick)</source>
            <translation>运行基准测试（快速）</translation>
        </message>
        <message>
            <source>Measure this machine: memory bandwidth, FLOPS, caches (Ctrl+B)</source>
            <translation>测量这台机器：内存带宽、FLOPS、缓存（Ctrl+B）</translation>
        </message>
        <message>
            <source>Run full benchmark</source>
            <translation>运行完整基准测试</translation>
        </message>
        <message>
            <source>A longer, more precise run with the cache sweep (Ctrl+Shift+B)</source>
            <translation>耗时更长、更精确的完整测试，含缓存扫描（Ctrl+Shift+B）</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Stop the running benchmark (Esc)</source>
            <translation>停止正在运行的基准测试（Esc）</translation>
        </message>
        <message>
            <source>Export…</source>
            <translation>导出…</translation>
        </message>
        <message>
            <source>Save the report as JSON, Markdown, HTML, PDF… (Ctrl+E)</source>
            <translation>将报告保存为 JSON、Markdown、HTML、PDF 等（Ctrl+E）</translation>
        </message>
        <message>
            <source>Open report…</source>
            <translation>打开报告…</translation>
        </message>
        <message>
            <source>Show a saved report, e.g. from another machine (Ctrl+O)</source>
            <translation>显示已保存的报告，例如来自另一台机器的（Ctrl+O）</translation>
        </message>
        <message>
            <source>Probe again</source>
            <translation>重新检测</translation>
        </message>
        <message>
            <source>Probe this machine again (F5)</source>
            <translation>重新检测这台机器（F5）</translation>
        </message>
        <message>
            <source>About</source>
            <translation>关于</translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>退出</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Benchmark</source>
            <translation>基准测试(&amp;B)</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>视图(&amp;V)</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>帮助(&amp;H)</translation>
        </message>
        <message>
            <source>Plain text</source>
            <translation>纯文本</translation>
        </message>
        <message>
            <source>Kubernetes NFD</source>
            <translation>Kubernetes NFD</translation>
        </message>
        <message>
            <source>Pages</source>
            <translation>页面</translation>
        </message>
        <message>
            <source>Dismiss</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>The translation for {lang} could not be loaded.</source>
            <translation>无法加载 {lang} 的翻译。</translation>
        </message>
        <message>
            <source>this machine</source>
            <translation>本机</translation>
        </message>
        <message>
            <source>probing this machine…</source>
            <translation>正在检测本机…</translation>
        </message>
        <message>
            <source>probing failed</source>
            <translation>检测失败</translation>
        </message>
        <message>
            <source>no report yet</source>
            <translation>尚无报告</translation>
        </message>
        <message>
            <source>probes {ok}/{n} ok</source>
            <translation>检测 {ok}/{n} 正常</translation>
        </message>
        <message>
            <source>assessing routes…</source>
            <translation>正在评估学习路线…</translation>
        </message>
        <message>
            <source>benchmark running</source>
            <translation>基准测试运行中</translation>
        </message>
        <message>
            <source>last benchmark just now</source>
            <translation>刚刚完成基准测试</translation>
        </message>
        <message>
            <source>last benchmark {n} min ago</source>
            <translation>上次基准测试于 {n} 分钟前</translation>
        </message>
        <message>
            <source>benchmark results included</source>
            <translation>含基准测试结果</translation>
        </message>
        <message>
            <source>no benchmark yet</source>
            <translation>尚未运行基准测试</translation>
        </message>
        <message>
            <source>showing {file}</source>
            <translation>正在显示 {file}</translation>
        </message>
        <message>
            <source>Probing this machine failed: {error}</source>
            <translation>检测这台机器失败：{error}</translation>
        </message>
        <message>
            <source>Open a saved report</source>
            <translation>打开已保存的报告</translation>
        </message>
        <message>
            <source>accelgui reports (*.json);;All files (*)</source>
            <translation>accelgui 报告 (*.json);;所有文件 (*)</translation>
        </message>
        <message>
            <source>Opening {path}…</source>
            <translation>正在打开 {path}…</translation>
        </message>
        <message>
            <source>Could not open {path}: {error}</source>
            <translation>无法打开 {path}：{error}</translation>
        </message>
        <message>
            <source>Could not save your progress: {error}</source>
            <translation>无法保存学习进度：{error}</translation>
        </message>
        <message>
            <source>Stopping the benchmark…</source>
            <translation>正在停止基准测试…</translation>
        </message>
        <message>
            <source>Benchmark {pct}% · {stage}</source>
            <translation>基准测试 {pct}% · {stage}</translation>
        </message>
        <message>
            <source>The benchmark failed.</source>
            <translation>基准测试失败。</translation>
        </message>
        <message>
            <source>Benchmark cancelled.</source>
            <translation>基准测试已取消。</translation>
        </message>
        <message>
            <source>Nothing to export yet: the machine is still being probed.</source>
            <translation>暂时没有可导出的内容：仍在检测这台机器。</translation>
        </message>
        <message>
            <source>Exported to {path}</source>
            <translation>已导出到 {path}</translation>
        </message>
        <message>
            <source>not installed</source>
            <translation>未安装</translation>
        </message>
        <message>
            <source>{key}: {action}</source>
            <translation>{key}：{action}</translation>
        </message>
        <message>
            <source>{first} … {last}: go to a page</source>
            <translation>{first} … {last}：切换页面</translation>
        </message>
        <message>
            <source>Alt+Left: from a learning path back to all routes</source>
            <translation>Alt+Left：从学习路径返回全部路线</translation>
        </message>
        <message>
            <source>What this machine can do for accelerated computing: probes, measured throughput and learning routes. Nothing leaves this computer unless you export it.</source>
            <translation>这台机器在加速计算方面能做什么：硬件检测、实测吞吐和学习路线。除非你主动导出，任何数据都不会离开这台电脑。</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>键盘快捷键</translation>
        </message>
        <message>
            <source>About accelgui</source>
            <translation>关于 accelgui</translation>
        </message>
        <message>
            <source>{machine}: a benchmark measures the computer the app runs on, not a recorded tree, so it is not run (its figures would be filed under the recorded hardware). Start accelgui without --sysroot to measure this computer.</source>
            <translation>{machine}：基准测试测量的是运行本程序的这台计算机，而不是录制的机器树，因此不运行（否则测得的数据会记在录制的硬件名下）。要测量这台计算机，请不带 --sysroot 启动 accelgui。</translation>
        </message>
        <message>
            <source>Licence: {licence}</source>
            <translation>许可证：{licence}</translation>
        </message>
        <message>
            <source>Project: {url}</source>
            <translation>项目主页：{url}</translation>
        </message>
        <message>
            <source>&amp;Run benchmark (quick)</source>
            <translation>运行基准测试（快速）(&amp;R)</translation>
        </message>
        <message>
            <source>Run &amp;full benchmark</source>
            <translation>运行完整基准测试(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Cancel</source>
            <translation>取消(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Export…</source>
            <translation>导出(&amp;E)…</translation>
        </message>
        <message>
            <source>&amp;Open report…</source>
            <translation>打开报告(&amp;O)…</translation>
        </message>
        <message>
            <source>&amp;Probe again</source>
            <translation>重新检测(&amp;P)</translation>
        </message>
        <message>
            <source>&amp;About</source>
            <translation>关于(&amp;A)</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>退出(&amp;Q)</translation>
        </message>
        <message>
            <source>Could not save your goal: {error}</source>
            <translation>无法保存学习目标：{error}</translation>
        </message>
    </context>
    <context>
        <name>OverviewView</name>
        <message>
            <source>This machine</source>
            <translation>这台机器</translation>
        </message>
        <message>
            <source>Probing failed</source>
            <translation>检测失败</translation>
        </message>
        <message>
            <source>Probing this machine… the pages fill in as the results arrive.</source>
            <translation>正在检测这台机器…结果到达后各页面会陆续填充。</translation>
        </message>
        <message>
            <source>Probed {when}</source>
            <translation>检测于 {when}</translation>
        </message>
        <message>
            <source>recorded tree {path}</source>
            <translation>录制的目录树 {path}</translation>
        </message>
        <message>
            <source>another machine</source>
            <translation>另一台机器</translation>
        </message>
        <message>
            <source>Report from {host}</source>
            <translation>来自 {host} 的报告</translation>
        </message>
        <message>
            <source>Opened from {path} · created {when} · accelgui {version}</source>
            <translation>打开自 {path} · 生成于 {when} · accelgui {version}</translation>
        </message>
        <message>
            <source>Processor</source>
            <translation>处理器</translation>
        </message>
        <message>
            <source>Vector features</source>
            <translation>向量指令</translation>
        </message>
        <message>
            <source>none reported</source>
            <translation>未报告</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>内存</translation>
        </message>
        <message>
            <source>System</source>
            <translation>系统</translation>
        </message>
        <message>
            <source>kernel {version}</source>
            <translation>内核 {version}</translation>
        </message>
        <message>
            <source>Runs on</source>
            <translation>运行环境</translation>
        </message>
        <message>
            <source>Host name</source>
            <translation>主机名</translation>
        </message>
        <message>
            <source>unknown processor</source>
            <translation>未知处理器</translation>
        </message>
        <message>
            <source>{cores} cores / {threads} threads</source>
            <translation>{cores} 核 / {threads} 线程</translation>
        </message>
        <message>
            <source>{threads} logical CPUs</source>
            <translation>{threads} 个逻辑 CPU</translation>
        </message>
        <message>
            <source>{n} sockets</source>
            <translation>{n} 路</translation>
        </message>
        <message>
            <source>({available} available)</source>
            <translation>（可用 {available}）</translation>
        </message>
        <message>
            <source>{n} NUMA nodes</source>
            <translation>{n} 个 NUMA 节点</translation>
        </message>
        <message>
            <source>{hv} virtual machine</source>
            <translation>{hv} 虚拟机</translation>
        </message>
        <message>
            <source>on the {provider} cloud</source>
            <translation>位于 {provider} 云上</translation>
        </message>
        <message>
            <source>inside a {kind} container</source>
            <translation>运行在 {kind} 容器中</translation>
        </message>
        <message>
            <source>no virtualisation detected (bare metal)</source>
            <translation>未检测到虚拟化（物理机）</translation>
        </message>
        <message>
            <source>Compute devices</source>
            <translation>计算设备</translation>
        </message>
        <message>
            <source>CPU</source>
            <translation>CPU</translation>
        </message>
        <message>
            <source>SIMD: {features}</source>
            <translation>SIMD：{features}</translation>
        </message>
        <message>
            <source>No wide SIMD extensions reported</source>
            <translation>未报告宽 SIMD 扩展</translation>
        </message>
        <message>
            <source>integrated</source>
            <translation>集成</translation>
        </message>
        <message>
            <source>unnamed device</source>
            <translation>未命名设备</translation>
        </message>
        <message>
            <source>{bus} {first} … {last}</source>
            <translation>{bus} {first} … {last}</translation>
        </message>
        <message>
            <source>driver {name}</source>
            <translation>驱动 {name}</translation>
        </message>
        <message>
            <source>no driver bound</source>
            <translation>未绑定驱动</translation>
        </message>
        <message>
            <source>{size} memory</source>
            <translation>{size} 显存</translation>
        </message>
        <message>
            <source>compute capability {cc}</source>
            <translation>计算能力 {cc}</translation>
        </message>
        <message>
            <source>Fix:</source>
            <translation>解决办法：</translation>
        </message>
        <message>
            <source>No accelerator found</source>
            <translation>未发现加速器</translation>
        </message>
        <message>
            <source>The probes saw no GPU, NPU, TPU or FPGA on this machine. The CPU routes run here; GPU and TPU work can still be learned on a cloud instance or a free notebook service.</source>
            <translation>检测未在这台机器上发现 GPU、NPU、TPU 或 FPGA。CPU 相关的路线可以在本机进行；GPU 和 TPU 的内容仍可以借助云实例或免费的在线笔记本服务来学习。</translation>
        </message>
        <message>
            <source>Some probes failed ({names}), so a device may have been missed.</source>
            <translation>部分检测失败（{names}），因此可能漏掉了某些设备。</translation>
        </message>
        <message>
            <source>Verdict</source>
            <translation>结论</translation>
        </message>
        <message>
            <source>Working out which learning routes fit this machine…</source>
            <translation>正在评估哪些学习路线适合这台机器…</translation>
        </message>
        <message>
            <source>The advisor could not run: {error}</source>
            <translation>建议模块无法运行：{error}</translation>
        </message>
        <message>
            <source>This report carries no route assessment.</source>
            <translation>这份报告不含学习路线评估。</translation>
        </message>
        <message>
            <source>{here} of {total} learning routes can be followed on this machine</source>
            <translation>{total} 条学习路线中有 {here} 条可以在这台机器上进行</translation>
        </message>
        <message>
            <source>; {n} more through the cloud or emulation</source>
            <translation>；另有 {n} 条可借助云端或仿真进行</translation>
        </message>
        <message>
            <source>.</source>
            <translation>。</translation>
        </message>
        <message>
            <source>Ready here</source>
            <translation>本机可直接进行</translation>
        </message>
        <message>
            <source>Partly ready (something to install)</source>
            <translation>部分就绪（需安装软件）</translation>
        </message>
        <message>
            <source>Through the cloud or emulation</source>
            <translation>借助云端或仿真</translation>
        </message>
        <message>
            <source>Not available</source>
            <translation>不可行</translation>
        </message>
        <message>
            <source>Next steps</source>
            <translation>下一步</translation>
        </message>
        <message>
            <source>Nothing left to suggest: every step of the routes that fit this machine is done.</source>
            <translation>没有更多建议了：适合这台机器的路线中所有步骤都已完成。</translation>
        </message>
        <message>
            <source>{hours} h</source>
            <translation>{hours} 小时</translation>
        </message>
        <message>
            <source>What this machine can run (estimates)</source>
            <translation>这台机器能运行什么（估算）</translation>
        </message>
        <message>
            <source>Device</source>
            <translation>设备</translation>
        </message>
        <message>
            <source>Memory for weights</source>
            <translation>可用于权重的内存</translation>
        </message>
        <message>
            <source>Runs at a usable speed (5+ tokens/s)</source>
            <translation>以可用速度运行（每秒 5 个 token 以上）</translation>
        </message>
        <message>
            <source>Largest that fits</source>
            <translation>能装下的最大模型</translation>
        </message>
        <message>
            <source>{model}, ~{n} tokens/s</source>
            <translation>{model}，约 {n} tokens/s</translation>
        </message>
        <message>
            <source>(once its driver is installed)</source>
            <translation>（安装驱动之后）</translation>
        </message>
        <message>
            <source>(once a compute runtime is installed)</source>
            <translation>（安装计算运行时之后）</translation>
        </message>
        <message>
            <source>Decode speed</source>
            <translation>解码速度</translation>
        </message>
        <message>
            <source>Fine-tuning fits</source>
            <translation>可进行的微调</translation>
        </message>
        <message>
            <source>none of the listed sizes</source>
            <translation>所列规模均不适用</translation>
        </message>
        <message>
            <source>~{n} tokens/s</source>
            <translation>约 {n} tokens/s</translation>
        </message>
        <message>
            <source>(measured bandwidth)</source>
            <translation>（基于实测带宽）</translation>
        </message>
        <message>
            <source>(specification)</source>
            <translation>（基于规格参数）</translation>
        </message>
        <message>
            <source>needs a bandwidth figure</source>
            <translation>需要带宽数据</translation>
        </message>
        <message>
            <source>fits</source>
            <translation>装得下</translation>
        </message>
        <message>
            <source>does not fit</source>
            <translation>装不下</translation>
        </message>
        <message>
            <source>Estimates from formulas, not measurements: real speed depends on the runtime, batch size and context length. Run a benchmark to base them on this machine's own bandwidth.</source>
            <translation>这些是按公式得出的估算，不是测量值：实际速度取决于运行时、批大小和上下文长度。运行一次基准测试，即可改用本机实测的带宽来估算。</translation>
        </message>
        <message>
            <source>Some probes had problems: {names}. &lt;a href='page:hardware'&gt;See the details on the Hardware page&lt;/a&gt;.</source>
            <translation>部分检测出现问题：{names}。&lt;a href='page:hardware'&gt;详见“硬件”页面&lt;/a&gt;。</translation>
        </message>
        <message>
            <source>{route}: {status}</source>
            <translation>{route}：{status}</translation>
        </message>
    </context>
    <context>
        <name>RoutesView</name>
        <message>
            <source>Learning routes</source>
            <translation>学习路线</translation>
        </message>
        <message>
            <source>Working out which learning routes fit this machine…</source>
            <translation>正在评估哪些学习路线适合这台机器…</translation>
        </message>
        <message>
            <source>The advisor could not run: {error}</source>
            <translation>建议模块无法运行：{error}</translation>
        </message>
        <message>
            <source>No learning routes are available (the knowledge base did not load).</source>
            <translation>没有可用的学习路线（知识库未能加载）。</translation>
        </message>
        <message>
            <source>Green: ready on this machine. Amber: something to install first. Blue: follow it through the cloud, an emulator or a simulator. Grey: not possible here. Open a route to see its learning path.</source>
            <translation>绿色：本机可直接进行。琥珀色：需要先安装一些软件。蓝色：借助云端、模拟器或仿真器进行。灰色：本机无法进行。打开一条路线即可查看它的学习路径。</translation>
        </message>
        <message>
            <source>not assessed</source>
            <translation>未评估</translation>
        </message>
        <message>
            <source>{n} steps · about {hours} h · {done} done</source>
            <translation>{n} 个步骤 · 约 {hours} 小时 · 已完成 {done} 个</translation>
        </message>
        <message>
            <source>Open learning path</source>
            <translation>查看学习路径</translation>
        </message>
        <message>
            <source>← All routes</source>
            <translation>← 全部路线</translation>
        </message>
        <message>
            <source>This route is not in the knowledge base.</source>
            <translation>知识库中没有这条路线。</translation>
        </message>
        <message>
            <source>On this machine</source>
            <translation>在这台机器上</translation>
        </message>
        <message>
            <source>Not assessed for this report.</source>
            <translation>这份报告未评估该路线。</translation>
        </message>
        <message>
            <source>Missing:</source>
            <translation>缺少：</translation>
        </message>
        <message>
            <source>What to do:</source>
            <translation>解决办法：</translation>
        </message>
        <message>
            <source>Meanwhile: {fallback}</source>
            <translation>在此之前：{fallback}</translation>
        </message>
        <message>
            <source>Tools:</source>
            <translation>工具：</translation>
        </message>
        <message>
            <source>use a cloud instance</source>
            <translation>使用云实例</translation>
        </message>
        <message>
            <source>use an emulator</source>
            <translation>使用模拟器</translation>
        </message>
        <message>
            <source>use a simulator</source>
            <translation>使用仿真器</translation>
        </message>
        <message>
            <source>Learning path</source>
            <translation>学习路径</translation>
        </message>
        <message>
            <source>{done} of {n} steps done · about {left} of {total} hours left</source>
            <translation>已完成 {done}/{n} 个步骤 · 还剩约 {left}/{total} 小时</translation>
        </message>
        <message>
            <source>Tick when you have done this step; it is saved on this computer.</source>
            <translation>完成这一步后请勾选；进度保存在这台电脑上。</translation>
        </message>
        <message>
            <source>next</source>
            <translation>下一步</translation>
        </message>
        <message>
            <source>{hours} h</source>
            <translation>{hours} 小时</translation>
        </message>
        <message>
            <source>Before this: {steps}</source>
            <translation>前置步骤：{steps}</translation>
        </message>
        <message>
            <source>; </source>
            <translation>；</translation>
        </message>
        <message>
            <source>Needs hardware or software this machine lacks; use the fallback above.</source>
            <translation>需要这台机器缺少的硬件或软件；请使用上面的替代方案。</translation>
        </message>
        <message>
            <source>Check:</source>
            <translation>检验方法：</translation>
        </message>
        <message>
            <source>Resources:</source>
            <translation>学习资源：</translation>
        </message>
        <message>
            <source>docs</source>
            <translation>文档</translation>
        </message>
        <message>
            <source>course</source>
            <translation>课程</translation>
        </message>
        <message>
            <source>code</source>
            <translation>代码库</translation>
        </message>
        <message>
            <source>book</source>
            <translation>书籍</translation>
        </message>
        <message>
            <source>paper</source>
            <translation>论文</translation>
        </message>
        <message>
            <source>video</source>
            <translation>视频</translation>
        </message>
        <message>
            <source>Common misconceptions, corrected</source>
            <translation>常见误解及更正</translation>
        </message>
        <message>
            <source>Often said:</source>
            <translation>常见说法：</translation>
        </message>
        <message>
            <source>In fact:</source>
            <translation>实际上：</translation>
        </message>
        <message>
            <source>source</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>The routes for your goal, {goal}, come first; change the goal under Next steps on the Overview.</source>
            <translation>服务于你的目标“{goal}”的路线排在前面；可在“概览”页的“下一步”中更改目标。</translation>
        </message>
        <message>
            <source>Checks this computer</source>
            <translation>检查的是这台计算机</translation>
        </message>
        <message>
            <source>the opened report</source>
            <translation>打开的报告</translation>
        </message>
        <message>
            <source>Checks this computer, not {machine}</source>
            <translation>检查的是这台计算机，而不是 {machine}</translation>
        </message>
        <message>
            <source>Exercise written to {path}: edit it, then press Verify to grade it on this computer.</source>
            <translation>练习已写入 {path}：修改后按“验证”，在这台计算机上评分。</translation>
        </message>
        <message>
            <source>Your exercise files are in {path} (nothing was overwritten); press Verify to grade them.</source>
            <translation>你的练习文件在 {path}（没有覆盖任何文件）；按“验证”为它们评分。</translation>
        </message>
        <message>
            <source>Cannot write the exercise: {error}</source>
            <translation>无法写入练习：{error}</translation>
        </message>
        <message>
            <source>Start exercise</source>
            <translation>开始练习</translation>
        </message>
        <message>
            <source>Open folder</source>
            <translation>打开文件夹</translation>
        </message>
        <message>
            <source>Exercise graded on this computer: {title}</source>
            <translation>在这台计算机上评分的练习：{title}</translation>
        </message>
        <message>
            <source>Ready to start since {date}: the tools this step needs work on this computer.</source>
            <translation>自 {date} 起可以开始：本步骤所需的工具在这台计算机上可用。</translation>
        </message>
        <message>
            <source>Your work passed on {date}:</source>
            <translation>你的作业于 {date} 通过：</translation>
        </message>
    </context>
    <context>
        <name>common</name>
        <message>
            <source>ready</source>
            <translation>就绪</translation>
        </message>
        <message>
            <source>partly ready</source>
            <translation>部分就绪</translation>
        </message>
        <message>
            <source>via cloud / emulation</source>
            <translation>通过云端 / 仿真</translation>
        </message>
        <message>
            <source>not available</source>
            <translation>不可行</translation>
        </message>
        <message>
            <source>runtime missing</source>
            <translation>缺少运行时</translation>
        </message>
        <message>
            <source>driver missing</source>
            <translation>缺少驱动</translation>
        </message>
        <message>
            <source>no access</source>
            <translation>无访问权限</translation>
        </message>
        <message>
            <source>unknown</source>
            <translation>未知</translation>
        </message>
        <message>
            <source>ok</source>
            <translation>正常</translation>
        </message>
        <message>
            <source>absent</source>
            <translation>不存在</translation>
        </message>
        <message>
            <source>error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>timeout</source>
            <translation>超时</translation>
        </message>
        <message>
            <source>GPU</source>
            <translation>GPU</translation>
        </message>
        <message>
            <source>NPU</source>
            <translation>NPU</translation>
        </message>
        <message>
            <source>TPU</source>
            <translation>TPU</translation>
        </message>
        <message>
            <source>FPGA</source>
            <translation>FPGA</translation>
        </message>
        <message>
            <source>DSP</source>
            <translation>DSP</translation>
        </message>
        <message>
            <source>Accelerator</source>
            <translation>加速器</translation>
        </message>
        <message>
            <source>beginner</source>
            <translation>入门</translation>
        </message>
        <message>
            <source>intermediate</source>
            <translation>进阶</translation>
        </message>
        <message>
            <source>advanced</source>
            <translation>高级</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <source>Monitor</source>
            <translation>监视器</translation>
        </message>
        <message>
            <source>Show this computer?</source>
            <translation>显示本机？</translation>
        </message>
        <message>
            <source>The window shows {machine}. Show this computer instead? The report stays open under Reports.</source>
            <translation>窗口正在显示{machine}。改为显示本机吗？该报告仍可在“报告”页中打开。</translation>
        </message>
        <message>
            <source>The benchmark history was not updated: {error}</source>
            <translation>基准测试历史未能更新：{error}</translation>
        </message>
        <message>
            <source>last benchmark on {date} (kept from an earlier run)</source>
            <translation>上次基准测试：{date}（保留自之前的运行）</translation>
        </message>
    </context>
    <context>
        <name>MonitorView</name>
        <message>
            <source>Utilisation</source>
            <translation>利用率</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Power</source>
            <translation>功耗</translation>
        </message>
        <message>
            <source>Clock</source>
            <translation>频率</translation>
        </message>
        <message>
            <source>Live monitor</source>
            <translation>实时监视</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>继续</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>暂停</translation>
        </message>
        <message>
            <source>Interval (s)</source>
            <translation>间隔（秒）</translation>
        </message>
        <message>
            <source>Export samples</source>
            <translation>导出采样</translation>
        </message>
        <message>
            <source>Device</source>
            <translation>设备</translation>
        </message>
        <message>
            <source>Utilisation %</source>
            <translation>利用率 %</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>内存</translation>
        </message>
        <message>
            <source>Temp °C</source>
            <translation>温度 °C</translation>
        </message>
        <message>
            <source>Power W</source>
            <translation>功耗 W</translation>
        </message>
        <message>
            <source>Clock MHz</source>
            <translation>频率 MHz</translation>
        </message>
        <message>
            <source>History</source>
            <translation>历史</translation>
        </message>
        <message>
            <source>CPU ({n} logical)</source>
            <translation>CPU（{n} 个逻辑核）</translation>
        </message>
        <message>
            <source>Saved {path}</source>
            <translation>已保存 {path}</translation>
        </message>
        <message>
            <source>Live monitor: this computer</source>
            <translation>实时监控：本机</translation>
        </message>
        <message>
            <source>Utilisation of each logical CPU since the last sample (bar height 0–100 %; hover for the figures)</source>
            <translation>自上次采样以来每个逻辑 CPU 的利用率（柱高 0–100 %；悬停查看数值）</translation>
        </message>
        <message>
            <source>Overlay every device on the plots</source>
            <translation>在图上叠加所有设备</translation>
        </message>
        <message>
            <source>Sensors</source>
            <translation>传感器</translation>
        </message>
        <message>
            <source>Processes</source>
            <translation>进程</translation>
        </message>
        <message>
            <source>Sensor</source>
            <translation>传感器</translation>
        </message>
        <message>
            <source>Reading</source>
            <translation>读数</translation>
        </message>
        <message>
            <source>Chip</source>
            <translation>芯片</translation>
        </message>
        <message>
            <source>Process</source>
            <translation>进程</translation>
        </message>
        <message>
            <source>PID</source>
            <translation>PID</translation>
        </message>
        <message>
            <source>Device memory</source>
            <translation>设备显存</translation>
        </message>
        <message>
            <source>Engine use</source>
            <translation>引擎占用</translation>
        </message>
        <message>
            <source>The window shows {machine}. A saved report or a recorded machine has no live readings: this page shows the computer accelgui runs on.</source>
            <translation>窗口当前显示的是 {machine}。保存的报告或录制的机器没有实时读数：本页显示的是运行 accelgui 的这台计算机。</translation>
        </message>
        <message>
            <source>CPU</source>
            <translation>CPU</translation>
        </message>
        <message>
            <source>seconds ago</source>
            <translation>秒前</translation>
        </message>
        <message>
            <source>every device</source>
            <translation>所有设备</translation>
        </message>
        <message>
            <source>Not reported by this device</source>
            <translation>此设备不提供该读数</translation>
        </message>
        <message>
            <source>Not reported by these devices</source>
            <translation>这些设备不提供该读数</translation>
        </message>
        <message>
            <source>No temperature or fan sensor is reported on this computer.</source>
            <translation>本机没有报告温度或风扇传感器。</translation>
        </message>
        <message>
            <source>No process is using an accelerator now (or this user may not see them).</source>
            <translation>目前没有进程在使用加速器（或当前用户无权查看）。</translation>
        </message>
        <message>
            <source>Plots</source>
            <translation>曲线图</translation>
        </message>
    </context>
</TS>
