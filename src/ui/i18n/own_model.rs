//! The words of "your own model": opening a Hugging Face model folder in the page, and what the
//! lab says of it once it runs.

/// What the status line says of a user's model.
pub struct ModelFacts<'a> {
    pub name: &'a str,
    pub layout: &'a str,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub width: usize,
    /// The parameters, digits grouped.
    pub parameters: &'a str,
    /// The megabytes its numbers take in memory, digits grouped.
    pub megabytes: &'a str,
    /// The number type its embeddings and MLPs keep: "f32", "bf16" or "f16".
    pub dtype: &'a str,
}

/// The texts of a user's own model, in one language.
pub struct OwnModelTexts {
    /// The button that opens a folder.
    pub open: &'static str,
    /// What it takes, and that nothing leaves the browser.
    pub open_help: &'static str,
    pub opening: &'static str,
    /// The folder could not be opened (the reason follows, as code); the last model is kept.
    pub failed: &'static str,
    /// What the model is, once it runs.
    pub ready: fn(&ModelFacts) -> String,
    /// What the lab does with it.
    pub about: [&'static str; 3],
    /// "What comes next" of a model whose tokens are not characters.
    pub next_help: &'static str,
    /// (position, its token)
    pub after: fn(usize, &str) -> String,
    /// The generator's help, in tokens.
    pub generate_help: &'static str,
    /// What the generator's count counts: tokens.
    pub steps: &'static str,
}

pub const EN: OwnModelTexts = OwnModelTexts {
    open: "Open a model folder…",
    open_help: "A Hugging Face folder (config.json, model.safetensors or its shards, tokenizer.json) of a GPT-2, Llama, Mistral, Qwen2, Qwen3, Gemma 2, Gemma 3 (text) or Qwen3-Next (hybrid, dense) model, up to 1 B parameters. It is read here, in your browser: nothing is uploaded. You can also drop the folder's files on the page.",
    opening: "Reading the model's files…",
    failed: "The folder could not be opened; the model in use is kept. The reason:",
    ready: |m| {
        let ModelFacts {
            name,
            layout,
            layers,
            heads,
            kv_heads,
            width,
            parameters,
            megabytes,
            dtype,
        } = m;
        let memory = if *dtype == "f32" {
            format!("{megabytes} MB in memory, in f32")
        } else {
            format!(
                "{megabytes} MB in memory: its embeddings and MLPs stay in {dtype} as its file stores them, and are computed in f32"
            )
        };
        let kv = if *kv_heads == 1 {
            "K/V head"
        } else {
            "K/V heads"
        };
        format!(
            "{name}: a {layout} model of {layers} layers × {heads} query heads ({kv_heads} {kv}), {width} wide, {parameters} parameters, reading text with its own tokenizer. {memory}."
        )
    },
    about: [
        "Your model runs on your sentence here, every layer and head computed live: the views, the layer selector, what comes next and generation work on it as on the lab's own models.",
        "The chips are the model's own tokens, from its tokenizer.json. A piece that starts with a space shows the space; a character split over several tokens shows each token's bytes as <0xE6>.",
        "Its forward passes run in a worker of their own, beside this page: while a large model computes (GPT-2 small's size: under a second for a hundred tokens here), the last result stays on view, the badge says it is computing, and the page keeps answering.",
    ],
    next_help: "The model's five most likely next tokens after the last one (or after the token under the pointer).",
    after: |position, token| format!("after token {position} “{token}”"),
    steps: "tokens",
    generate_help: "The model writes one token at a time. A token's keys and values depend only on the text up to it, and that text never changes, so each layer keeps them: the cache. A new token then computes only its own row, whose query reads every cached key. Without the cache, the whole text runs again for every token.",
};

pub const ZH: OwnModelTexts = OwnModelTexts {
    open: "打开模型文件夹…",
    open_help: "一个 Hugging Face 模型文件夹（config.json、model.safetensors 或其分片、tokenizer.json），架构为 GPT-2、Llama、Mistral、Qwen2、Qwen3、Gemma 2、Gemma 3（纯文本）或 Qwen3-Next（混合、稠密），参数不超过 10 亿。文件只在你的浏览器里读取，不会上传。也可以把文件夹里的文件拖到页面上。",
    opening: "正在读取模型文件…",
    failed: "无法打开这个文件夹；当前使用的模型保持不变。原因：",
    ready: |m| {
        let ModelFacts {
            name,
            layout,
            layers,
            heads,
            kv_heads,
            width,
            parameters,
            megabytes,
            dtype,
        } = m;
        let memory = if *dtype == "f32" {
            format!("占内存 {megabytes} MB（f32）")
        } else {
            format!("占内存 {megabytes} MB：嵌入和 MLP 按文件里的 {dtype} 原样保存，计算时转成 f32")
        };
        format!(
            "{name}：{layout} 架构，{layers} 层 × {heads} 个查询头（{kv_heads} 个 K/V 头），宽 {width}，{parameters} 个参数，用它自己的分词器读文本。{memory}。"
        )
    },
    about: [
        "你的模型在这里读你的句子，每一层、每个头都实时计算：各个视图、层选择、“接下来是什么”和生成，都和实验室自带的模型一样可用。",
        "词块是模型自己的 token，来自它的 tokenizer.json。以空格开头的 token 会显示出这个空格；一个字被拆成几个 token 时，每个 token 显示为它的字节，如 <0xE6>。",
        "它的前向计算在页面旁边一个专用的 worker 里进行：大模型计算时（GPT-2 small 的规模，这里一百个 token 不到一秒），页面上保留上一次的结果，角标显示“计算中……”，页面照常响应。",
    ],
    next_help: "模型认为最后一个 token（或指针所指的 token）之后最可能出现的五个 token。",
    after: |position, token| format!("第 {position} 个 token「{token}」之后"),
    steps: "个 token",
    generate_help: "模型一次写一个 token。一个 token 的键和值只取决于它之前的文本，而这段文本不再改变，所以每一层都把它们留下：这就是缓存。新 token 只需计算自己的一行，它的查询读取所有缓存的键。没有缓存时，每写一个 token 都要把整段文本重算一遍。",
};
