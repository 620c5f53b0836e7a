//! 学习模式的中文文本。

use super::learn::{
    CacheLessonTexts, ChapterText, CircuitsLessonTexts, DeltaLessonTexts, ExerciseText,
    ExperimentTexts, HeadVariances, HybridsLessonTexts, Knocked, LearnTexts, ModernTexts,
};

pub const LEARN: LearnTexts = LearnTexts {
    learn: "学习",
    lab: "实验室",
    contents: "章节",
    chapter_of: |i, n| format!("第 {i} 章，共 {n} 章"),
    previous: "← 上一章",
    next: "下一章 →",
    present: "演示",
    end_present: "结束演示",
    present_help: "← 和 → 切换章节；Esc 结束演示。",
    try_this: "动手试试",
    predict: "先预测",
    reveal: "直接看结果",
    right: "答对了。",
    not_quite: "不太对。",
    answer_first: "先在上面选定一个答案，实验再告诉你实际会发生什么。",
    experiment: "实验：用你的句子",
    views: "本章对应的实验室视图",
    score: |right, all| format!("{all} 道题中答对 {right} 道"),
    your_answer: "你的答案（只留在本页）",
    compare: "与参考解答对照",
    worked: "直接看参考解答",
    reset: "清除我的答案",
    stored_here: "学习进度只保存在这个浏览器里，不会发送到任何地方。",
    query: "查询",
    open_in_lab: "在完整实验室中打开",
    chapters: [
        ChapterText {
            title: "词元变成向量",
            body: &[
                "注意力看不到文字本身。句子先被切成词元，每个词元在嵌入表 E 中查出一行 d_model 个数：词表里每个词元对应一行。",
                "查表只知道词元是什么，不知道它在哪里，而注意力本身对顺序一无所知。所以要加上位置向量 P：X = E + P。之后的每一步读的都是 X。",
            ],
            try_this: "输入一个把同一个词用两次的句子，然后比较下面 E 和 X 中这两行。",
            question: "同一个词在句中出现两次，它在 X 中的两行相等吗？",
            choices: [
                "相等：同一个词得到同一个向量",
                "不相等：位置不同，所以 X 不同",
                "不相等：每次查表都是新的随机抽取",
            ],
            explain: "两行嵌入完全相同（词表中每个词元只有一行），但 P 取决于位置，所以 X = E + P 的两行不同。模型正是靠这一点区分两次出现。",
        },
        ChapterText {
            title: "查询、键与值",
            body: &[
                "每个词元的 x 被投影三次。查询 q = x W_Q 表示这个词元在找什么；键 k = x W_K 表示它能被什么找到；值 v = x W_V 是它被选中后交出去的内容。",
                "词元 i 去找、词元 j 被找到的匹配程度是点积 q_i · k_j。由于 W_Q 和 W_K 是不同的矩阵，i 对 j 的关注不必等于 j 对 i 的关注。",
            ],
            try_this: "在下面选一个查询词元，看它和哪些键最匹配；再比较 QKᵀ 热力图对角线两侧。",
            question: "Q 和 K 都由同一个 X 得到。q_i · k_j 一定等于 q_j · k_i 吗？",
            choices: [
                "是，点积是对称的",
                "不是：W_Q 与 W_K 不同，QKᵀ 不对称",
                "只有 i 和 j 是同一个词时才相等",
            ],
            explain: "q_i · k_j = x_i W_Q W_Kᵀ x_jᵀ。矩阵 W_Q W_Kᵀ 一般不对称，所以分数矩阵也不对称：i 对 j 的注意力与 j 对 i 的注意力是两个不同的问题。",
        },
        ChapterText {
            title: "为什么要除以 √d_k",
            body: &[
                "如果 q 和 k 的各个分量相互独立、均值为 0、方差为 1，它们的点积是 d_k 个独立乘积之和，每个乘积方差为 1：点积的方差就是 d_k。d_k = 512 时，典型的分数在 ±22 左右。",
                "分数相差这么大，softmax 几乎把全部权重给一个键。这个键的梯度 p(1 − p) 随之几乎消失，这一层就学不动了。除以 √d_k 后，无论 d_k 多大，方差都回到 1。",
                "这个论证建立在关于分量的前提上，而实验室的随机头并不满足它：W_Q 和 W_K 按 Xavier 方差 2 / (d_model + d_k) 抽取，于是 q = x W_Q 的一个分量方差约为 d_model · var(x) · 2 / (d_model + d_k)，d_k 越大它越小。所以下表把你的头量两次：一次是算出来的 q 和 k，一次是 q̃ 和 k̃——把每个分量在你的词元上标准化为均值 0、方差 1，正是论证所假设的。",
            ],
            try_this: "在控制面板中改变 d_k（或 d_model），看表中你的各个头：标准化之后，var(q̃ · k̃) 跟着 d_k 走，除以 √d_k 后保持在 1 附近；按原样计算时，var(q · k) 跟着的是分量的大小。曲线给出 d_k 从 4 到 512 的单位方差随机向量。",
            question: "d_k = 512 且不除以 √d_k 时，16 个随机键的一行 softmax 中，最大权重平均约为多少？",
            choices: [
                "约 1/16：权重保持均匀",
                "约 0.3",
                "接近 1：一个键几乎拿走全部",
            ],
            explain: "分数的标准差约为 √512 ≈ 22.6，最高分通常比第二名高出好几个单位，exp 把它变成接近 1 的权重；梯度 p(1 − p) 趋于 0。缩放之后，各个 d_k 下的一行看起来都差不多。",
        },
        ChapterText {
            title: "Softmax 与温度",
            body: &[
                "Softmax 把一行分数变成为正且和为 1 的权重。在 softmax 之前把分数除以温度 T，可以改变这一行的尖锐程度。",
                "T → 0 时权重趋向 arg-max：一个键得到全部（熵为 0）。T 变大时趋向均匀分布 1/n（熵为 ln n）。T = 1 就是原始公式。",
            ],
            try_this: "拖动温度滑块，看标记沿曲线移动，权重热力图在如实的 0 … 1 色标上变平或变尖。",
            question: "T 从 1 变到 10 时，一行权重会怎样？",
            choices: [
                "变得更尖锐",
                "变平，趋向均匀",
                "不变：softmax 会把 T 归一化掉",
            ],
            explain: "softmax(s / T)：T 越大，分数之间的差距越小，exp 给出的数几乎相等，这一行趋向 1/n，熵趋向 ln n。",
        },
        ChapterText {
            title: "掩码",
            body: &[
                "掩码规定一个查询能看哪些键。填充掩码遮住短句末尾的填充；因果掩码遮住未来（预测下一个词元的语言模型不能偷看）；窗口只保留邻近的词元；自定义掩码可以遮住任意格子。",
                "被遮住的分数在 softmax 之前设为 −∞，exp 正好得到 0。实际实现常用一个很大的负数代替。只要这一行还有一个可见的键，两者结果相同；当所有键都被遮住时就不同了。",
            ],
            try_this: "在控制面板中选择因果或填充掩码，或者在自定义掩码编辑器中点格子，直到整行都被遮住。",
            question: "某个查询的所有键都用 −10⁹ 而不是 −∞ 遮住。它的权重是什么？",
            choices: ["全为 0", "均匀：每个键 1/n", "NaN"],
            explain: "所有分数都是 −10⁹，彼此相等，相等分数的 softmax 是均匀分布：这个查询平均地关注了本不该看的键。用 −∞ 时 exp 给出 0/0；本实验室（和 FlashAttention 一样）把这样的行定义为全零，并明确说明。",
        },
        ChapterText {
            title: "位置：绝对位置、RoPE 与 ALiBi",
            body: &[
                "注意力本身不知道先后顺序：把键打乱，每个查询得到的权重一样，只是顺序跟着变了。2017 年的模型在一开始就给每个词元的向量加上位置向量 P（X = E + P）。于是词元的 q 和 k 带上了它的绝对位置，整段文字往后挪，每个分数都会变。",
                "RoPE（旋转位置编码，Llama、Qwen、Mistral、DeepSeek 都用它）不往 X 里加任何东西，而是在投影之后旋转每个头的 q 和 k：维度两两成对，位置 m 上向量的第 p 对旋转 m·θ_p，θ_p = base^(−2p/d_k)。q 转 mθ、k 转 nθ 之后，q·k 只取决于差 m − n，所以分数是相对的。长度不变，v 也从不旋转。",
                "ALiBi（BLOOM、MPT）完全不碰 q 和 k：它从第 h 个头的分数里减去 m_h·|i − j|，每个头一个固定斜率（8 个头时是 1/2、1/4、…、1/256）。远处的键被压低，斜率陡的头只看近处。它同样只取决于 i − j。",
                "一个陷阱：RoPE 的维度有两种配对方式。Meta 最初的 Llama 和 GPT-J 把 2p 与 2p + 1 配对；GPT-NeoX 和 Hugging Face 的 Llama 把 p 与 p + d_k/2 配对。两者都是相对的，但同样的权重给出不同的分数。转换检查点时要重排 W_Q 和 W_K 的列，让每一对落到另一种布局期望的位置。",
            ],
            try_this: "在“位置”中选 RoPE，拖动偏移：分数不动。再选“绝对”，拖动偏移试试。",
            question: "用 RoPE 时，每个查询和键都往后挪 100 个位置。分数会怎样？",
            choices: ["全部改变", "不变（只差舍入误差）", "都乘以 100"],
            explain: "RoPE 按各自的角度旋转 q 和 k，它们的点积只取决于两个角度之差，而整体平移不改变这个差。",
        },
        ChapterText {
            title: "滑动窗口与汇聚词元",
            body: &[
                "因果滑动窗口（Mistral、gpt-oss）只让查询 i 看键 i − r … i。计算量从 n(n + 1)/2 个格子降到约 n(r + 1) 个，生成时每层也只需保留 r + 1 个键和值，而不是全部。更远的内容这一层根本看不到；多层叠起来可以把其中一部分传递下去。",
                "StreamingLLM 发现，模型总会把很大一部分注意力放在最前面几个词元上，不管它们是什么：softmax 必须把权重分到某处，而最前面的词元对每个查询都可见，就成了“停放”权重的地方。用窗口把它们切掉，每一行的权重都得重新分配，效果随之变差。把最前面 k 个词元作为“汇聚词元”始终保留可见，效果就回来了。",
                "这里窗口和汇聚词元作用在你自己的分数上：被窗口挡住的键权重为 0，其余的键分掉剩下的权重，汇聚词元无论多远都保留位置。",
            ],
            try_this: "在“掩码”中选“滑动”，把半径设为 2，汇聚词元分别设为 0 和 1，观察最后一个查询的那一行。",
            question: "一句 20 个词元的句子，窗口半径 3，1 个汇聚词元：最后一个查询能看到几个键？",
            choices: ["3", "5", "20"],
            explain: "键 16、17、18、19 离查询 19 不超过 3（包括它自己，共 4 个），再加上作为汇聚词元保留的键 0：共 5 个。",
        },
        ChapterText {
            title: "为什么要多个头",
            body: &[
                "一个头对每个查询只给出一种加权方式。多个头各有宽度为 d_model / h 的 W_Q、W_K、W_V，可以同时寻找不同的东西：前一个词、主语、重复出现的名字。",
                "各个头的输出拼接起来，再由 W_O 混合。把 d_model 分成 h 个头与一个宽头的参数量相同：收获在于多样性，而不在于规模。",
            ],
            try_this: "改变头数，并排比较各个头；表格度量它们的注意方式有多不同。再在控制面板的“权重”中选择训练好的模型：它的各个头学会了不同的分工（有一个专看前一个字符），距离随之变大。",
            question: "h 个宽 d_model / h 的头，对比一个宽 d_model 的头：W_Q、W_K、W_V、W_O 的参数量是？",
            choices: ["多 h 倍", "一样多", "少 h 倍"],
            explain: "W_Q 是 d_model × (h · d_model / h) = d_model × d_model，两种情况相同，W_K、W_V、W_O 也一样：都是 4 d_model²。表格用你当前的形状计算。",
        },
        ChapterText {
            title: "多查询与分组查询注意力",
            body: &[
                "模型生成文本时，要为每一层保存之前所有词元的键和值（KV 缓存）。头多了以后，占满显存的是这个缓存，而不是权重。",
                "分组查询注意力（GQA）让几个查询头共用一个 K/V 头；多查询注意力（MQA）让所有查询头共用同一个 K/V 头。查询仍然按头区分，所以各个头仍在问不同的问题。",
            ],
            try_this: "在控制面板中勾选“共享 K/V”，并减少 K/V 头数；观察缓存一列和 K、V 两个阶段。",
            question: "从 8 个 K/V 头减到 1 个（多查询），每个词元的 KV 缓存变为……",
            choices: ["不变", "一半", "八分之一"],
            explain: "每个 K/V 头、每个词元缓存 d_k + d_v 个数：K/V 头从 8 个减到 1 个，缓存就除以 8，而 W_Q 和 W_O 不变。",
        },
        ChapterText {
            title: "交叉注意力",
            body: &[
                "自注意力中，查询、键和值都来自同一句话。交叉注意力中，查询来自一个序列，键和值来自另一个序列：翻译模型的解码器就是这样向编码后的源句提问的。",
                "此时权重矩阵是 n × m：每个查询词元一行，每个源词元一列，每行在源句上的和仍为 1。",
            ],
            try_this: "给出第二个句子（下面的按钮会添加一句）；表格显示每个查询最看重哪个源词元。",
            question: "查询来自 5 个词元的句子，键和值来自 8 个词元的句子。权重矩阵是……",
            choices: ["5 × 5", "5 × 8", "8 × 8"],
            explain: "每个查询一行（5 行），每个键一列（8 列）。输出每个查询一行：每个查询得到源句各个值的一个加权混合。",
        },
        ChapterText {
            title: "层归一化：Pre-LN 与 Post-LN",
            body: &[
                "层归一化（LayerNorm）把每个词元的向量调整为均值 0、标准差 1（再乘以可学习的 γ、加上 β）。在残差块中，它可以放在相加之后，LN(x + F(x))（Post-LN，原始 Transformer 的做法），也可以放在子层之前，x + F(LN(x))（Pre-LN）。",
                "Post-LN 让残差流保持固定大小，但每个梯度都要穿过每一块的 LayerNorm，深层网络需要学习率预热。Pre-LN 从输出到输入留有一条不受影响的恒等路径，训练更稳定；它的残差流会随深度增长。",
            ],
            try_this: "在控制面板中选择 Pre-LN，就能在各阶段中看到 LN(X)；第一张图在两种放置方式下堆叠随机块，第二张图让损失沿同样的块反向传播，量出每一块收到的梯度。",
            question: "经过 24 个随机块后，哪一种的残差流变大了？",
            choices: ["Pre-LN", "Post-LN", "都没有：LayerNorm 把两者都固定住了"],
            explain: "Post-LN 每次相加后都归一化，所以每块之后残差流大小都是 1。Pre-LN 只归一化进入 F 的部分；x + F(LN(x)) 不断累加，残差流一块接一块地增长。",
        },
        ChapterText {
            title: "数值稳定性与精度",
            body: &[
                "exp 会溢出：f32 中大约超过 88.7，f16 中超过 ln 65504 ≈ 11.09。直接对原始分数取指数的 softmax，只要有一个分数越过这个点，就会得到 ∞ / ∞ = NaN。",
                "exp 也会下溢：f16 中低于约 −17.3（f32 中低于 −104）时结果舍入为 0。如果一行的分数全都这么低，总和就是 0，权重变成 0 / 0 = NaN。一行全是负分数时，把它们放大只会让它们更负：这样的一行只会下溢，不会溢出。",
                "先减去这一行的最大值，在数学上不改变结果（每个分数减去同一个数，会在比值中约掉），却同时解决了两个问题：最大的指数恰好是 0，不会溢出；它的 exp 是 1，总和不会变成 0。另外 f16 只有 11 位有效二进制位，用 f16 算 QKᵀ 会带来明显误差：混合精度训练中注意力分数仍用 f32 计算。",
            ],
            try_this: "调大乘在分数上的系数 k，找出朴素 f16 softmax 在哪里失效、怎样失效：有正分数的行会溢出，全是负分数的行会下溢。再给每个分数加上 c：稳定版本纹丝不动，朴素版本在别处失效。",
            question: "在 f16 中、不减去最大值时，分数超过大约多少 softmax 就会失效？",
            choices: ["11", "88", "65 504"],
            explain: "f16 能表示的最大数是 65 504，而 e^11.09 ≈ 65 504：只要一个分数超过 11.09，exp 就变成无穷大。f32 要到 88.7 才溢出。实验会为你的这一行找出确切的 k，并说明它是因溢出而失效，还是（当所有分数都为负时）因下溢而失效。",
        },
        ChapterText {
            title: "驯服分数：软上限、QK 归一化、汇聚 logit",
            body: &[
                "分数过大会让 softmax 只挑一个键，其他键的梯度几乎为零；训练中分数还可能越长越大，直到训练发散。如今的模型用三种办法应对。",
                "软上限（Gemma 2）在除以温度之前把分数 z 换成 c·tanh(z/c)：远小于 c 的分数几乎原样通过，大的分数弯向 ±c 而永远到不了，所以没有分数能超过 c。",
                "QK 归一化（Gemma 3、OLMo 2）在点积之前把每个头的 q、k 行除以各自的均方根。这样每个向量的长度都是 √d_k，无论权重怎样变化，都有 |q·k|/√d_k ≤ √d_k；通常后面还跟一个可学习的增益，实验室里省略了它。",
                "汇聚 logit（gpt-oss）是每行 softmax 中多出的一列，每个头一个可学习的数，算完后丢掉。于是可见的键分到的总和小于 1，一个没有有用信息可读的头可以把注意力交给“空无”，而不必压在第一个词元上。",
            ],
            try_this: "在“分数整形”中依次打开 QK 归一化、软上限 1、某个头的汇聚 logit 5，比较权重。",
            question: "d_k = 16 时做了 QK 归一化，|q·k|/√d_k 最大能有多大？",
            choices: ["1", "4", "16"],
            explain: "两个向量的长度都是 √16 = 4，所以 |q·k| ≤ 16，|q·k|/√16 ≤ 4 = √d_k。",
        },
        ChapterText {
            title: "O(n²)",
            body: &[
                "每个查询都要和每个键比较：每个头 n² 个分数，每个分数 d_k 次乘加，还要存 n² 个权重。句子长度加倍，分数矩阵的计算量和内存都变为四倍。",
                "换来的是路径长度：任意两个词元之间一步可达，而循环神经网络最多需要 n − 1 步，信息和梯度在途中逐渐衰减。",
            ],
            try_this: "点击“测量”，在本页面中对一个头从 n = 64 到 4096 计时；双对数坐标上拟合出的斜率就是指数。",
            question: "n 加倍时，标准注意力的耗时大约变为原来的……",
            choices: ["2 倍", "4 倍", "8 倍"],
            explain: "(2n)² = 4n²。当 n 大到 n² 项占主导时，测得的斜率接近 2；n 较小时看到的是固定开销。FlashAttention 做的是同样的 n² 计算：它省的是内存，不是算术。",
        },
        ChapterText {
            title: "FlashAttention",
            body: &[
                "FlashAttention 得到完全相同的结果，却从不保存 n × n 矩阵。它按块遍历查询和键，为每个查询行维护一个运行最大值 m、一个运行和 l 和一个输出累加器。",
                "当新的块抬高了最大值时，之前累加的内容乘以 exp(m_old − m_new) 重新缩放：正是这种在线 softmax 让它不必看到整行就能算完每一行。分数所需内存从 n² 降到一个块。",
            ],
            try_this: "在下面的播放器中逐块前进；使用因果掩码时，数一数它跳过了多少块。",
            question: "FlashAttention 的输出与标准注意力相比……",
            choices: ["是一种近似", "相同，只差浮点舍入", "更精确"],
            explain: "它是精确算法：同样的求和，只是顺序不同。本实验室同时计算两者，并显示最大差值，约为 10⁻⁷。",
        },
        ChapterText {
            title: "KV 缓存",
            body: &[
                "解码器一次写一个词元，每个新词元都要做一次前向计算。但在因果掩码下，任何查询都读不到它之后的键，所以加入一个新词元不会改变之前任何一行：它们的 q、k、v、权重和输出都和原来完全一样。",
                "因此生成的每一步只需计算新的一行。在每一层里，把新词元投影成 q、k、v，把 k 和 v 追加到之前保存下来的部分（即 KV 缓存），再用它唯一的 q 去和所有缓存的键打分：矩阵乘向量，而不是矩阵乘矩阵。Q 从不缓存，因为旧的查询再也不会被读到。",
                "代价从计算转移到了内存。每个词元，缓存要存 2 · 层数 · K/V 头数 · d_head 个数（K 和 V）；共用 K/V 头（GQA、MQA）或把它们压缩（MLA），长上下文才放得下。没有缓存，每一步都要把整段文字重算一遍，文字越长，每一步越慢。",
            ],
            try_this: "在“无”和“因果”两种掩码之间切换，看分给后面键的最大权重怎样变化；再选一个训练好的模型，在下方分别开着和关着缓存生成。",
            question: "解码器已经写了 100 个词元，正在算第 101 个。有 KV 缓存时，每一层要算 Q 的哪些行？",
            choices: [
                "全部 101 行，和普通前向计算一样",
                "只算新的一行：前面 100 行算出来也一样",
                "只算新词元最关注的那几行",
            ],
            explain: "在因果掩码下，前面的行看不到新词元，重算它们得到的数字完全一样。实验只用最后一行的 q 和缓存的 K、V 重新算出这一行，并和完整计算比较；下方的生成器把每一步都和整段重算对照。",
        },
        ChapterText {
            title: "流式推理与注意力汇聚点",
            body: &[
                "模型一次最多读它的上下文长度。为了继续读下去，流式服务滚动它的缓存：保留最近的 w 个词元，丢掉更早的，这样不管文字多长，内存都不变。位置按缓存内的顺序编号，所以 RoPE 模型永远不会遇到训练时没见过的位置。",
                "Xiao 等人（StreamingLLM，2023）发现，大模型一旦把最开头的几个词元移出缓存就会崩，而只要保留其中四个（汇聚点，sink tokens）就能恢复。softmax 总得把权重分到某处；许多头把用不着的权重停放在第一个词元上，因为每个查询都看得到它。把它移走，这些权重就会落到有意义的词元上。",
                "一个模型会不会这样，是这个模型自己的事实，需要测量，而不能想当然。实验室的 Llama 结构模型在这里读一段四倍于上下文的文字，分别有、无汇聚点，并与滑动窗口重算对比。",
            ],
            try_this: "选择 Llama 结构，在下方分别用 4 个和 0 个汇聚点读这段文字，比较两条曲线，以及各个头放在第一个字符上的比例。",
            question: "实验室的小 Llama 模型（3 层，用 256 个字符的窗口训练）通过只保留最近 64 个字符的缓存读 956 个字符。去掉汇聚点，它的损失会怎样？",
            choices: [
                "开头的字符一离开缓存就暴涨，和大模型一样",
                "几乎不变：在长文本上，这个小模型的各个头只把百分之几的注意力给第一个字符",
                "下降，因为缓存越小越好",
            ],
            explain: "在这里实测：两条曲线几乎重合（平均值只差千分之几 nat），在这段文字的前 256 个字符上，没有哪个头给第一个字符超过百分之几的权重。汇聚点出现在用长文本训练的大模型里；这个模型从来不需要它。",
        },
        ChapterText {
            title: "头为什么看那里？回路",
            body: &[
                "一个头的模式说明它做了什么；它为什么这样做，答案在残差流里。后面的头读到的一切，都是前面写进去的：词嵌入、位置，以及之前的每个头和每个 MLP。把归一化的缩放固定在它实际的值上，分数就精确地等于许多项之和，每一项对应一对写入者：查询从其中一个读到的，乘以键从另一个读到的。",
                "Elhage 等人（2021）和 Olsson 等人（2022）描述了归纳回路：第 1 层的一个头把每个字符的前一个字符抄到它的位置上（前一字符头）；后面一个头的键读到这份抄本，于是查询会匹配上“前一个字符等于查询自己”的那个键，模型便预测上次接在后面的字符。头像这样协同工作，叫作组合；这里是通过键组合（K 组合）。",
                "有两个工具可以在真实数字上检验这样的说法：把分数拆开，看它读了哪些写入者；把一个头关掉（输出换成 0 或它的平均值），看什么坏掉了。",
            ],
            try_this: "选 GPT-2 模型，把一个随机串打两遍（xq7kb@ xq7kb）。在下面的权重里点归纳头落在目标上的那个权重，读“为什么看这里？”；再到“一眼看全所有头”里关掉前一字符头。",
            question: "关掉第 1 层的前一字符头。对一个打了两遍的串，归纳头的模式会怎样？",
            choices: [
                "不变：每个头都从句子自己算出模式",
                "垮掉：归纳头的键读的正是前一字符头写下的东西",
                "更尖锐：少了一个头来争抢键",
            ],
            explain: "键失去了它用来匹配的东西。在 xq7kb@ xq7kb 上，GPT-2 模型的 L2·H4 把 0.654 的权重放在“@”上；关掉 L1·H2 之后只剩 0.004，模型也不再预测“@”。下面的实验在你自己的文本上测同样的量，并指出这个模型的回路和教科书上的哪里不同。",
        },
        ChapterText {
            title: "稀疏注意力与线性注意力",
            body: &[
                "稀疏注意力只计算部分格子：跨步（strided）模式让每个查询看最近的 √n 个邻居，以及更早处每隔 √n 个的词元；固定（fixed）模式看自己所在的块，以及之前每个块的一个汇总词元。约 n√n 个格子，而不是 n²/2。",
                "线性注意力用 φ(q) · φ(k) 代替 exp(q · k)，φ 是正的特征映射，例如 elu + 1。这样 φ(K)ᵀ V 只需求和一次，代价与 n 成线性；但权重不再是 softmax，输出也就不同。多查询注意力（见该章）节省的是内存，而不是计算。",
            ],
            try_this: "把句子加长，观察两种稀疏模式的格子数如何相对于 n√n 和 n² 增长。",
            question: "步长为 √n 的跨步模式大约计算多少个格子？",
            choices: ["n", "n√n", "n²"],
            explain: "n 个查询中的每一个大约看 √n 个邻居和 √n 个跨步的键：约 2n√n 个格子，而完整的因果注意力是 n(n + 1)/2。",
        },
        ChapterText {
            title: "线性注意力的进化：delta 规则",
            body: &[
                "线性注意力不用 softmax，而是维护一个不断更新的状态：每个词元把 k vᵀ 加到一个 d_k × d_v 的矩阵 S 上，查询读出 Sᵀq。无论文本多长，每个词元的开销都一样；输出仍然是 A·V，A 是一个隐含矩阵：下三角，但不是 softmax，所以行之和不必为 1，元素也可以是负数。",
                "代价是记忆。不管读过多少词元，S 都只有 d_k × d_v 个数。普通的线性注意力只会往里加，一旦键彼此重叠，写进去的每个值都会渗进每个回答里。",
                "delta 规则（DeltaNet）像编辑一样写入：在键 k 处存入 v 之前，先按步长 β 减去 S 对 k 已有的读数：S ← S + k β (v − Sᵀk)。当 β = 1、键的长度为 1 时，写完之后状态对 k 的回答恰好是 v。Gated DeltaNet 先把 S 乘以一个小于 1 的衰减 α，让旧的写入逐渐淡去、腾出空间。Qwen3-Next、Qwen3.5 和 Kimi Linear 都叠放这类层，每三层线性配一层 softmax。",
                "同样的数可以逐词元地算（生成时就是这样：每个词元更新一次 S），也可以分块算（块内用矩阵乘法，块与块之间经由 S 传递：GPU 上跑的 WY 形式）。两种算法必须一致。",
            ],
            try_this: "在控制面板里改变 d_k：状态变大或变小，它在回忆失效之前能容纳的键值对数量也随之移动。然后打开完整实验室的“线性注意力”一节，拖动滑块扫过各个词元，看 S 如何被填满、淡去、被改写。",
            question: "用 delta 规则（β = 1）把 64 个键值对依次写进一个 16 × 16 的状态。用最后一对的键去问，状态会给出什么？",
            choices: [
                "64 个值混在一起的模糊结果，和普通线性注意力一样",
                "恰好是最后写入的那个值",
                "什么也没有：状态已经满了",
            ],
            explain: "最后一次写入会把状态对它那个键的回答修正为恰好是 v。更早的键值对会被之后键与之重叠的写入扰动；当键值对的数量超过状态的 16 个键方向时，扰动更大。普通的线性注意力连最新的一对都记不清。",
        },
        ChapterText {
            title: "混合模型与门",
            body: &[
                "线性注意力每个词元的花费与文本多长无关，那为什么还要保留 softmax 层？因为大小固定的状态会遗忘：delta 规则那一章里，键值对一旦多过状态的键方向，回忆就开始出错。softmax 层的缓存什么都不忘，只是不断变大。",
                "所以 2025 年的开放模型把两种层混在一起。Qwen3-Next、Qwen3.5 和 Kimi Linear 重复同一组结构：三层线性注意力加一层全注意力。三层线性注意力以固定的代价携带一份不断更新的摘要，每四层中的那一层全注意力仍能精确地查到之前的任何词元。于是它们的内存分成两部分：固定的状态，以及增长速度只有全 softmax 模型四分之一的缓存。",
                "Qwen3-Next 的全注意力头还会让每个输出先经过一个门 σ(x·W_g)，再交给 W_O。softmax 的一行必须加起来等于 1，所以一个头即使没有值得读的内容，也得把权重停在某处，通常是第一个词元：这就是注意力汇聚点（attention sink），常常伴随一个极大的激活值。有了门，头可以干脆关上门。Qiu 等（2025）报告说，汇聚点消失了，极大的激活值也变小了。",
                "实验室正在训练一对模型来亲眼验证：Llama 模型，以及每个头都加了门的孪生模型。下面两者用同一个滚动缓存读“流式”一节的示例文本，汇聚点的三个迹象并排摆在一起，并说明试过什么。",
            ],
            try_this: "在控件里改 d_k 和 K/V 头的数量，看 3 : 1 的堆叠从哪里开始比全 softmax 的占用更少。然后按“比较孪生模型”，读一读每个模型的三个汇聚点迹象。",
            question: "一个 3 : 1 的混合模型和一个头数相同的全 softmax 模型各读 65 536 个词元。混合模型占用的内存大约是全 softmax 模型的多少？",
            choices: [
                "一样多：每一层仍然关注每个词元",
                "大约四分之一，再加上固定的状态",
                "固定的一份：没有什么随文本增长",
            ],
            explain: "每四层只有一层缓存键和值，所以会增长的那部分只有全 softmax 模型的四分之一；三层的状态再加上一份固定的量，文本一长就显得很小。和全线性的模型不同，它仍在增长：这是精确回忆的代价。",
        },
        ChapterText {
            title: "练习",
            body: &[
                "课程文章最后有三道练习。先自己回答每一道；之后参考解答会逐步展开，并指向在你自己的句子上展示答案的章节。",
            ],
            try_this: "在下面写下你对每道题的答案，与参考解答对照，再打开它指向的章节核对数字。",
            question: "",
            choices: ["", "", ""],
            explain: "",
        },
    ],
    exercises: [
        ExerciseText {
            title: "1. 自注意力的复杂度",
            asks: &[
                "自注意力的时间复杂度和空间复杂度是多少？",
                "序列长度 n 怎样影响它们？",
                "自注意力与循环神经网络相比如何？",
            ],
            steps: &[
                "时间：QKᵀ 是 n × d_k 乘以 d_k × n，每个头 n² d_k 次乘加；权重乘 V 再加 n² d_v；各投影各 n d_model²。h 个头且 h d_k = d_model 时：O(n² d_model + n d_model²)。",
                "空间：每个头 n × n 的权重，共 O(h n²)；FlashAttention 不保存它们时只需 O(n) 额外内存。",
                "序列长度的影响：n 加倍，注意力部分变为四倍——“O(n²)”一章在本页面中测量斜率。",
                "与 RNN 比较：RNN 代价为 O(n d²)，但要顺序走 n 步，第一个词元到最后一个词元的路径是 n − 1 步；注意力的路径是 1 步，n² 的计算可以并行。",
            ],
        },
        ExerciseText {
            title: "2. 多头注意力",
            asks: &[
                "为什么多个头比一个头更有效？",
                "头的数量会改变什么？",
                "参数可以怎样在各个头之间分配？",
            ],
            steps: &[
                "为什么比单头好：每个头有自己的投影，可以关注不同的东西；单头只能把一切平均成一种加权。“为什么要多个头”一章度量你的各个头的权重有多不同。",
                "头数的影响：头数增加不增加参数（都是 4 d_model²），但每个头的 d_k = d_model / h 变小；d_k 太小会限制一个头能匹配的内容。常见做法让 d_k 保持在 64 或 128。",
                "参数分配：分组查询注意力共享 K/V 头以缩小 KV 缓存，同时保留全部查询头——见 GQA 一章的表格。",
            ],
        },
        ExerciseText {
            title: "3. Pre-LN 与 Post-LN",
            asks: &[
                "LayerNorm 的两种放置方式各有什么得失？",
                "LayerNorm 对训练的稳定性起什么作用？",
                "归一化怎样影响梯度的流动？",
            ],
            steps: &[
                "Post-LN，LN(x + F(x))：残差流保持归一化，但传到前面各层的梯度要穿过每一个 LayerNorm；深层模型需要预热，训练不够稳定。",
                "Pre-LN，x + F(LN(x))：从输出到输入有一条恒等路径，梯度不受衰减地到达前面各层，不用预热也能稳定训练；残差流随深度增长，所以最后要再加一个 LayerNorm。",
                "“层归一化”一章在两种放置方式下各堆叠 24 个随机块，画出残差流大小，并让损失沿这些块反向传播：Pre-LN 下每一块收到的梯度至少和输出处一样大；Post-LN 下梯度每经过一块都要穿过一个 LayerNorm。实验室的 LayerNorm 控件可以在两者之间切换。",
            ],
        },
    ],
    x: ExperimentTexts {
        cross_source: "那只猫很累，所以它坐下了。",
        token: "词元",
        key: "键",
        head: "头",
        weight: "权重",
        repeated: |t, a, b, de, dx| {
            format!(
                "“{t}”出现在位置 {a} 和位置 {b}：两行嵌入相差 |ΔE| = {de:.3}，两行 X 相差 |ΔX| = {dx:.3}。"
            )
        },
        no_repeat: "这个句子中没有重复的词元：把一个词用两次，就能看到 E 不变而 X 改变。",
        qkv_intro: |t, h, d| {
            format!("“{t}”的查询（第 {h} 个头，d_k = {d}）与每个键的匹配，最匹配的在前：")
        },
        dot: "q · k",
        masked: "已遮住",
        variance_title: "q · k 的方差：单位方差的随机向量",
        variance_y: "方差",
        raw: "q · k",
        scaled: "q · k / √d_k",
        theory: "d_k（理论值）",
        saturation_title: "16 个随机分数的 softmax：最大权重及其梯度",
        saturation_y: "200 行的平均",
        largest_raw: "最大权重，未缩放",
        largest_scaled: "最大权重，÷ √d_k",
        gradient_raw: "p(1 − p)，未缩放",
        gradient_scaled: "p(1 − p)，÷ √d_k",
        heads_caption: "你的各个头，在所有查询–键对上：算出来的 q 和 k，以及标准化后的 q̃ 和 k̃（每个分量在你的词元上均值 0、方差 1）",
        var_q: "q 一个分量的方差",
        var_k: "k 一个分量的方差",
        var_raw: "var(q · k)",
        var_scaled: "var(q · k / √d_k)",
        var_standard: "var(q̃ · k̃)",
        var_standard_scaled: "var(q̃ · k̃ / √d_k)",
        heads_result: |v| {
            let HeadVariances {
                head: h,
                d_model,
                d_k,
                xavier,
                q,
                k,
                raw,
                standard,
                scaled,
                pairs,
            } = *v;
            format!(
                "头 {h}：q 的一个分量方差为 {q:.3}，k 的为 {k:.3}，都不是 1，因为 W 按方差 2 / (d_model + d_k) = 2 / ({d_model} + {d_k}) = {xavier:.4} 抽取；所以 var(q · k) = {raw:.3} 反映的主要是这些分量的大小，而不是 d_k = {d_k}。按论证的假设标准化之后：var(q̃ · k̃) = {standard:.2}，接近 d_k = {d_k}；var(q̃ · k̃ / √d_k) = {scaled:.3}，接近 1。这是在你的词元的 {pairs} 个配对上测得的，不像曲线那样用了成千上万个样本，所以只会接近理论值，不会正好相等。"
            )
        },
        one_token: "只有一个词元时没有分量会变化：标准化至少需要两个词元。",
        hist_raw: "所选头的 q · k",
        hist_scaled: "q · k / √d_k，同一坐标轴",
        row_result: |v| {
            format!(
                "你选中的查询，不缩放时 softmax：最大权重 {:.3}，熵 {:.3}，梯度 p(1 − p) {:.3}；除以 √d_k 后：{:.3}、{:.3}、{:.3}。",
                v[0], v[1], v[2], v[3], v[4], v[5]
            )
        },
        sweep_title: "T 从 0.05 到 10 时所选查询的权重",
        temperature: "温度 T",
        sweep_y: "0 … 1",
        largest: "最大权重",
        entropy_share: "熵 ÷ ln n",
        sweep_result: |t, p, h, u, k| {
            format!(
                "T = {t} 时：最大权重 {p:.3}，熵 {h:.3} 奈特，上限 ln n = {u:.3}。T → 0 时全部权重归于“{k}”；T 变大时这一行趋向均匀。"
            )
        },
        with_infinity: "用 −∞ 遮住",
        with_large_negative: "用 −10⁹ 遮住",
        all_masked: |a, b| format!("同一行把所有键都遮住——用 −∞：{a}；用 −10⁹：{b}。"),
        fully_masked: |rows| {
            format!("在你的掩码下，这些查询看不到任何键：{rows}。它们的权重和输出都是零。")
        },
        no_fully_masked: "在你的掩码下，每个查询至少能看到一个键。",
        distance_caption: "两个头的注意方式有多不同：各查询权重行之间 ½ Σ |a − b| 的平均（0 = 相同，1 = 完全不重叠）",
        mean_distance: |d| format!("各对头的平均值：{d:.3}。"),
        head_parameters: |h, d, split, single, current| {
            format!(
                "{h} 个宽 {d}/{h} 的头的投影：{split} 个参数；一个宽 {d} 的头：{single}；你当前的形状：{current}。"
            )
        },
        kv_heads: "K/V 头",
        kind: "类型",
        kinds: ["多头", "分组查询", "多查询"],
        kv_parameters: "W_K、W_V 参数",
        parameters: "全部投影",
        cache_per_token: "每个词元每层的 KV 缓存（f16）",
        cache_4096: "4096 个词元",
        current: "当前",
        not_cross: "现在是自注意力：键和值来自同一个句子。添加第二个句子即可跨句注意。",
        add_source: "添加第二个句子",
        cross_result: |n, m| format!("{n} 个查询 × {m} 个键：每个查询最看重的源词元："),
        source_token: "源词元",
        mean: "均值",
        std: "标准差",
        after_mean: "LN 后均值",
        after_std: "LN 后标准差",
        stream_title: "残差流经过随机块后的大小（均方根）",
        blocks: "块数",
        stream_y: "均方根",
        pre_ln: "Pre-LN：x + F(LN(x))",
        post_ln: "Post-LN：LN(x + F(x))",
        stream_result: |pre, post, n| {
            format!("经过 {n} 块后，Pre-LN 残差流的均方根为 {pre:.2}；Post-LN 为 {post:.2}。")
        },
        gradient_title: "每一块输入处的梯度 ∂L/∂x（÷ 输出处的），由反向传播求得",
        gradient_y: "‖∂L/∂x‖ ÷ 输出处",
        gradient_result: |n, pre, pre_min, post, post_min, post_max| {
            format!(
                "一个读取最后一块输出的损失，在初始化时沿同样的 {n} 块反向传播：Pre-LN 下到达输入的梯度是输出处的 {pre:.2} 倍，没有哪一块收到的少于 {pre_min:.2} 倍，因为恒等路径把输出处的梯度原样交给每一块，每一块再加上自己的一份。Post-LN 下到达输入时是 {post:.2} 倍（途中在 {post_min:.2} 到 {post_max:.2} 倍之间），每一块的梯度都穿过了它上面的各个 LayerNorm，每个 LayerNorm 都要除以其输入的离散程度。"
            )
        },
        factor: "把分数乘以 k",
        shift: "再给每个分数加上 c",
        naive_f32: "朴素，f32",
        naive_f16: "朴素，f16",
        stable_f16: "减去最大值，f16",
        largest_exponent: |top| format!("这一行 k · s + c 的最大值为 {top:.2}。"),
        breaks_overflow: |p, k, e| {
            format!(
                "在 {p} 中，朴素 softmax 于 k = {k} 因溢出而失效：此时 k · s + c 的最大值达到 {e:.2}，超过了 {p} 最大数的对数，于是它的 exp 为 ∞，∞ / ∞ = NaN。"
            )
        },
        breaks_sum: |p, k, e| {
            format!(
                "在 {p} 中，朴素 softmax 于 k = {k} 因总和溢出而失效：此时 k · s + c 的最大值为 {e:.2}，每个 exp 本身仍在 {p} 范围内，但有好几个分数接近最大值，它们的 exp 加起来超过了 {p} 的最大数；于是每个权重都变成 0。"
            )
        },
        breaks_underflow: |p, k, e| {
            format!(
                "在 {p} 中，朴素 softmax 于 k = {k} 因下溢而失效：此时 k · s + c 的最大值为 {e:.2}，每个 exp 都舍入为 0，权重成了 0 / 0 = NaN。"
            )
        },
        never_breaks: |p| format!("在 {p} 中，k 小于 10 000 时朴素 softmax 都不会失效。"),
        only_underflow: |q, token, score| {
            format!(
                "这一行的分数全是负数，所以这里 exp 只会下溢，不会溢出。要看到本章讲的溢出，可以加上 c > 0，或者选择查询 {q}（“{token}”），它的最大分数 {score:.2} 是这个头中最大的。"
            )
        },
        choose_query: |q| format!("选择查询 {q}"),
        states: ["正常", "溢出", "下溢"],
        now: |k, c, f32, f16, stable| {
            format!("k = {k}、c = {c} 时：朴素 f32 {f32}；朴素 f16 {f16}；减去最大值 {stable}。")
        },
        f16_error: |abs, rel| {
            format!(
                "这个头的 QKᵀ 用 f16 输入、乘积和求和计算：与 f32 相比最大误差 {abs:.2e}（为该值的 {:.2} %）。",
                rel * 100.0
            )
        },
        counts: |n, cells, std, tile, rnn| {
            format!(
                "n = {n} 时：所有头共 {cells} 个分数；一个头的分数矩阵占 {std} 字节（f32），FlashAttention 的一个块占 {tile} 字节。从第一个词元到最后一个：注意力 1 步，循环网络 {rnn} 步。"
            )
        },
        measure: "测量",
        measuring: |n| format!("正在测量 n = {n}……"),
        time_title: "一个头（d_k = 32）的耗时，在本页面中测得",
        time_y: "毫秒",
        standard: "标准",
        flash: "flash",
        slope: |s, f| {
            format!("双对数坐标上拟合的斜率（n ≥ 256）：标准 {s:.2}，flash {f:.2}（2 即 O(n²)）。")
        },
        measure_help: "在每个规模下，页面成批地计时多次运行（它的时钟太粗，测不准 n 较小时的单次运行），取最快的一批；到 4096 时会停顿约一秒。",
        flash_on_cpu: |n, ratio| {
            format!(
                "n = {n} 时，FlashAttention 用时是标准计算的 {ratio:.2} 倍。这在这里是意料之中的：在 CPU 上两者做的是同样的 n² 次乘加，分块还要额外做重新缩放。FlashAttention 节省的是 GPU 上的内存读写：它从不把 n × n 矩阵写进 GPU 容量大而慢的显存（HBM），而是把每个块留在片上的快速存储（SRAM）里。FlashAttention 一章会数出这些字节。"
            )
        },
        flash_counts: |tiles, skipped, std, tile, diff| {
            format!(
                "共 {tiles} 个块，其中 {skipped} 个被掩码跳过；标准注意力每个头保存 {std} 个分数，FlashAttention 只保存一个 {tile} 个分数的块。两者输出的最大差值：{diff:.1e}。"
            )
        },
        patterns: ["跨步", "固定"],
        sparse_counts: |p, stride, cells, nsn, causal| {
            format!(
                "{p}（步长 {stride}）：{cells} 个格子；对比 n√n = {nsn:.0}，完整因果注意力为 {causal}。"
            )
        },
        linear: |max, mean, lin, soft| {
            format!(
                "在所选头上做线性注意力（φ = elu + 1）：与 softmax 注意力的最大差值 {max:.3}，平均 {mean:.3}；代价 {lin} 次乘加，对比 {soft}。"
            )
        },
        go_to: "前往该章",
    },
    circuits: CircuitsLessonTexts {
        found: |i, c, j, t, tc| {
            format!(
                "你的文本：位置 {i} 的「{c}」在位置 {j} 出现过；归纳头会看位置 {t} 的「{tc}」，也就是上次跟在它后面的字符。"
            )
        },
        heads: |prev, share, ind, w| {
            format!(
                "{prev} 最关注前一个字符（平均 {share} 的权重在它上面）；{ind} 给这个目标的权重最大：{w}。"
            )
        },
        writers: |score, list| format!("它的分数 {score}，按键读到的写入者拆开：{list}。"),
        textbook: |part| format!("和教科书上的回路一样：键读得最多的是前一字符头（{part}）。"),
        not_textbook: |top, part, prev, own| {
            format!(
                "和教科书上的回路不完全一样：键读得最多的是 {top}（{part}）；前一字符头 {prev} 直接写下的只有 {own}。一个头写下的东西，可以经过 MLP 才到达后面的键。"
            )
        },
        composition: |prev, ind, k, base, strongest, sk| {
            format!(
                "只看权重，{prev} → {ind} 的 K 组合是 {k}，同样形状的随机矩阵是 {base}；在前面的头里，对 {ind} 的键组合最强的是 {strongest}（{sk}）。"
            )
        },
        knocked: |k: &Knocked| {
            let Knocked {
                previous: prev,
                induction: ind,
                before,
                after,
                top,
                top_after,
                copied: c,
                p,
                p_after,
            } = *k;
            format!(
                "关掉 {prev}：{ind} 在目标上的权重 {before} → {after}；最可能的下一个字符 {top} → {top_after}；「{c}」本身 {p} → {p_after}。"
            )
        },
        knocked_little: |before, after| {
            format!(
                "关掉它，归纳头几乎不动（{before} → {after}）：在这段文本上，这个模型的归纳头并不依赖那个头。"
            )
        },
        needs_model: "这一章需要训练好的模型：随机权重只有一层，也没有哪个头学到了值得解释的东西。",
        use_gpt2: "用 GPT-2 模型和 xq7kb@ xq7kb",
        take_apart: "在“为什么看这里？”里拆开这个分数",
        no_repeat: "你的文本里没有哪个字符出现两次、且第一次后面还有字符。把一个串打两遍，比如 xq7kb@ xq7kb。",
        cannot_run: "模型无法在这段文本和这些设置上运行；实验室上方的提示说明了原因。",
    },
    cache: CacheLessonTexts {
        future: |w, causal| {
            if causal {
                format!(
                    "在这个因果掩码下，任何查询分给它之后的键的最大权重是 {w}：加入新词元不会改变前面的任何一行，所以前面的行可以保存下来。"
                )
            } else {
                format!(
                    "没有因果掩码时，一个查询分给后面键的权重可达 {w:.3}：加入新词元会改变前面的行，缓存下来的结果就过时了。像 BERT 这样双向看的编码器不这样运行。"
                )
            }
        },
        last_row: |query, head, delta| {
            format!(
                "头 {head} 的最后一行（查询 {query}），只用它自己的 q 和缓存的 K、V 重新算出，与完整计算的最大差值为 {delta:.1e}。"
            )
        },
        last_row_shaped: "这些分数经过了 ALiBi、软上限或汇聚 logit 的调整；最后一行的重算没有包含它们（下方的生成器会逐步校验一个真实模型）。",
        bytes: |bytes, kv, d_k, d_v| {
            format!(
                "这里每个词元在每一层给缓存增加 {bytes}：{kv} 个 K/V 头 × ({d_k} + {d_v}) 个数 × 4 字节。"
            )
        },
        cost_title: "一层里为一个新词元做的计算（乘加次数，按当前形状）",
        cost_columns: ["已有词元数", "有缓存", "无缓存", "倍数"],
        try_model: "用训练好的模型生成：每一步新的一行对着不断增长的缓存，分别计时有缓存和无缓存。",
        try_llama: "使用 Llama 结构的模型",
        share: |even, most, head, n| {
            format!(
                "每个头在第一个之后的每个查询上分给第一个键的平均权重，在你输入的句子（{n} 个词元）上：头 {head} 给得最多，{:.1}%；如果每个查询把权重平均分给它看得到的键，这个值是 {:.1}%。在短句上，第一个键可能因为很平常的原因得到多得多的权重：前几个查询只看得到几个键，而且第一个词可能本身就重要。这还不是汇聚点：汇聚点是在长文本上不管查询是什么都保持很大的比例；下方的流式视图正是在一段长文字的前 256 个字符上测量这一点，Llama 模型在那里的比例只有百分之几。",
                most * 100.0,
                even * 100.0
            )
        },
        share_columns: ["头", "第一个键上的权重"],
        kept_title: |w, k| format!("缓存保留的位置：全部，或最近的 {w} 个加最开头的 {k} 个"),
        kept_columns: ["文字长度", "完整缓存", "滚动缓存"],
    },
    modern: ModernTexts {
        why_not: [
            "训练好的模型保留它学到的绝对位置：选随机权重才能比较各种位置。",
            "你自己给的 X 没有句子可以放位置：输入一句话再比较。",
            "这里最多比较 512 个词元：请缩短输入。",
        ],
        kinds: ["绝对", "无", "RoPE", "ALiBi"],
        kind: "位置",
        shift_change: |shift| format!("每个位置 + {shift} 后分数的最大变化"),
        top_key: |query| format!("查询 {query} 最关注的键"),
        odd_d_k: |d_k| format!("RoPE 需要偶数的 d_k（这里是 {d_k}）：已略去。"),
        pairings: |differ, permuted, order| {
            format!(
                "同样的 W_Q 和 W_K 做 RoPE：前后半配对与相邻配对的分数最多相差 {differ}。把 q 和 k 的列（即 W_Q、W_K 的列）重排为 {order}，两者就一致到 {permuted}。"
            )
        },
        window_cells: |radius, sinks, causal, window, with_sinks| {
            format!(
                "因果掩码：{causal} 个格子。半径 {radius} 的窗口：{window} 个。再加 {sinks} 个汇聚词元：{with_sinks} 个。"
            )
        },
        window_mass: |query, hidden, sinks, kept| {
            format!(
                "在完整的因果掩码下，查询 {query} 把 {hidden} 的权重给了窗口挡住的键，{sinks} 给了汇聚词元，{kept} 给了窗口内的其他键。"
            )
        },
        hidden_per_query: |list| format!("从查询 0 起，每个查询被挡住的键数：{list}。"),
        causal: "因果",
        window: "窗口",
        with_sinks: "窗口 + 汇聚",
        hidden: "挡住",
        sink: "汇聚",
        not_cross: "滑动窗口沿着同一句话的顺序移动，不适用于交叉注意力。",
        cap: "软上限 c",
        no_cap: "无",
        largest_score: "最大 |分数|",
        top_weight: "最大权重",
        entropy: "熵（奈特）",
        caps_intro: |query, head| format!("第 {head} 个头的查询 {query}，在几种上限下："),
        qk_norm_intro: |d_k, bound, growth| {
            format!(
                "每个头最大的 |q·k|/√d_k。d_k = {d_k}，所以 QK 归一化后的上界是 √d_k = {bound}；再把 q 和 k 乘以 {growth}，模拟训练中权重变大："
            )
        },
        raw: "不做 QK 归一化",
        normed: "做 QK 归一化",
        raw_grown: |g| format!("不做，q、k × {g}"),
        normed_grown: |g| format!("做，q、k × {g}"),
        sinks_intro: |max| format!("同一行加上一个在其最大分数（{max}）附近的汇聚 logit："),
        sink_logit: "汇聚 logit",
        no_sink: "无",
        kept: "留给各个键的权重",
    },
    delta: DeltaLessonTexts {
        chart: [
            "向状态索回写进去的内容",
            "已写入的键值对数",
            "平均回忆误差 ‖Sᵀk − v‖ / ‖v‖",
            "普通线性注意力（S ← S + k vᵀ）",
            "delta 规则（β = 1）",
            "带门控的 delta 规则（α = 0.9）",
        ],
        at_capacity: |d_k, plain, delta, gated, newest| {
            format!(
                "长度为 1 的随机键，共 d_k = {d_k} 维：写入 {d_k} 对之后（与状态的键方向一样多），平均回忆误差是：普通线性注意力 {plain}，delta 规则 {delta}，加上衰减 {gated}；用 delta 规则时，最新的一对取回的误差是 {newest}。"
            )
        },
        past_capacity: |pairs, recent, delta, gated, alpha| {
            format!(
                "写入 {pairs} 对之后，状态已经装不下：最后写入的 {recent} 对，不加衰减时取回误差为 {delta}，加上 α = {alpha} 的衰减时为 {gated}——衰减让旧的键值对退场。"
            )
        },
        chunks: |head, items| {
            format!(
                "你的句子，第 {head} 个头，用带门控的 delta 规则：分块形式与逐词元计算相比，最大差 {items}。"
            )
        },
        linear_layer: |layer| {
            match layer {
            Some(layer) => format!(
                "这个混合模型的第 {layer} 层是线性注意力：本章的实验读取 softmax 权重，请选择一个全注意力层（或换一个模型）再运行。"
            ),
            None => "这些头在计算线性注意力（“注意力类型”控件）：本章的实验读取 softmax 权重，请把注意力类型改回 softmax 再运行。".to_string(),
        }
        },
    },
    hybrids: HybridsLessonTexts {
        chart: [
            "四层在阅读时要保存多少",
            "读过的词元数",
            "保存的字节数（f32）",
            "全 softmax（0 : 4）",
            "各占一半（2 : 2）",
            "三比一（3 : 1）",
            "全线性（4 : 0）",
        ],
        crossover: |crossover, hybrid, softmax, longest, heads, kv_heads, d_k, d_v| {
            format!(
                "用你的头形状堆四层（{heads} 个查询头、{kv_heads} 个 K/V 头、d_k = {d_k}、d_v = {d_v}）：从 {crossover} 个词元起（图中标出的竖线），3 : 1 的堆叠比全 softmax 的占用更少；读到 {longest} 个词元时，它保存 {hybrid} 字节，全 softmax 则是 {softmax} 字节。"
            )
        },
    },
};
