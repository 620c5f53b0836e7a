//! Why a trained model cannot generate or stream, in the reader's language: the engine's typed
//! refusals (`GenerationRefusal`, `GenerateError`, `StreamError`) worded for the page, where the
//! command line's field names (`stream_eval.window`) would mean nothing.

use attention_core::api::GenerationRefusal;
use attention_core::models::generate::GenerateError;
use attention_core::models::stream::StreamError;

use super::Lang;

/// What stops the generator or the streaming view.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelProblem {
    /// No trained model is chosen.
    NeedModel,
    Refused(GenerationRefusal),
    Generate(GenerateError),
    Stream(StreamError),
}

impl Lang {
    /// The problem in this language.
    pub fn model_problem(self, problem: &ModelProblem) -> String {
        match problem {
            ModelProblem::NeedModel => self.text().model.generate.need_model.into(),
            ModelProblem::Refused(GenerationRefusal::Request(e)) => self.request_error(e),
            ModelProblem::Refused(refusal) => match self {
                Lang::En => en_refusal(refusal),
                Lang::Zh => zh_refusal(refusal),
            },
            ModelProblem::Generate(e) => match self {
                Lang::En => en_generate(e),
                Lang::Zh => zh_generate(e),
            },
            ModelProblem::Stream(StreamError::Text(e)) => {
                self.model_problem(&ModelProblem::Generate(e.clone()))
            }
            ModelProblem::Stream(e) => match self {
                Lang::En => en_stream(e),
                Lang::Zh => zh_stream(e),
            },
        }
    }
}

fn en_refusal(refusal: &GenerationRefusal) -> String {
    match refusal {
        GenerationRefusal::Request(e) => e.to_string(),
        GenerationRefusal::Mask => {
            "Generation runs the model as it was trained, under its causal mask: choose the causal mask.".into()
        }
        GenerationRefusal::Shaping => {
            "Generation runs the model as it was trained: turn off the soft-cap, QK-norm and sink logits.".into()
        }
    }
}

fn zh_refusal(refusal: &GenerationRefusal) -> String {
    match refusal {
        GenerationRefusal::Request(e) => e.to_string(),
        GenerationRefusal::Mask => {
            "生成时按模型训练时的方式运行，即使用因果掩码：请选择因果掩码。".into()
        }
        GenerationRefusal::Shaping => {
            "生成时按模型训练时的方式运行：请关闭软上限、QK 归一化和汇聚 logit。".into()
        }
    }
}

fn en_generate(e: &GenerateError) -> String {
    match e {
        GenerateError::EmptyPrompt => "The text is empty: type at least one character.".into(),
        GenerateError::UnknownCharacters(chars) => format!(
            "The model does not know {chars}: it could only read them as <unk>. Write them otherwise or leave them out."
        ),
        GenerateError::Steps { value, max } => {
            format!("Steps must be between 1 and {max} (not {value}).")
        }
        GenerateError::PastContext {
            prompt,
            steps,
            context,
        } => format!(
            "The text ({prompt} characters) and {steps} steps are more than the model's context of {context}: use fewer steps or a shorter text."
        ),
        GenerateError::SamplingTemperature(t) => format!(
            "The sampling temperature must be above 0 (not {t}); choose greedy for the most likely character."
        ),
    }
}

fn zh_generate(e: &GenerateError) -> String {
    match e {
        GenerateError::EmptyPrompt => "文字是空的：请至少输入一个字符。".into(),
        GenerateError::UnknownCharacters(chars) => {
            format!("模型不认识 {chars}：只能把它们当作 <unk> 读入。请换一种写法或删掉它们。")
        }
        GenerateError::Steps { value, max } => {
            format!("步数必须在 1 到 {max} 之间（而不是 {value}）。")
        }
        GenerateError::PastContext {
            prompt,
            steps,
            context,
        } => format!(
            "文字（{prompt} 个字符）加上 {steps} 步超过了模型 {context} 个字符的上下文：请减少步数或缩短文字。"
        ),
        GenerateError::SamplingTemperature(t) => {
            format!("采样温度必须大于 0（而不是 {t}）；要取最可能的字符请选贪心。")
        }
    }
}

fn en_stream(e: &StreamError) -> String {
    match e {
        StreamError::Text(e) => en_generate(e),
        StreamError::LearnedPositions => {
            "This model's learned positions cannot move inside a cache: choose the Llama layout to stream.".into()
        }
        StreamError::Hybrid => {
            "A hybrid's linear layers keep a fixed-size state, not keys one could drop: streaming with a rolling cache is for softmax models.".into()
        }
        StreamError::ZeroWindow => "The window must hold at least 1 character.".into(),
        StreamError::SinksNotBelowWindow {
            sink_tokens,
            window,
        } => format!(
            "The sink tokens ({sink_tokens}) must be fewer than the window ({window})."
        ),
        StreamError::PastContext {
            window,
            sink_tokens,
            context,
        } => format!(
            "A window of {window} and {sink_tokens} sink tokens exceed the model's context of {context}: the cache would hold positions it was never trained on."
        ),
        StreamError::Length { count, max } => {
            format!("The text has {count} characters: give between 2 and {max}.")
        }
        StreamError::TooFewTokens { count } => format!(
            "The model reads this text as {count} token: give one of at least 2 tokens, so that one can be predicted from another."
        ),
    }
}

fn zh_stream(e: &StreamError) -> String {
    match e {
        StreamError::Text(e) => zh_generate(e),
        StreamError::LearnedPositions => {
            "这个模型的位置是学出来的，不能在缓存里移动：请选择 Llama 结构来做流式读取。".into()
        }
        StreamError::Hybrid => {
            "混合模型的线性层保存的是固定大小的状态，没有可以丢弃的键：滚动缓存的流式读取只适用于 softmax 模型。".into()
        }
        StreamError::ZeroWindow => "窗口至少要容纳 1 个字符。".into(),
        StreamError::SinksNotBelowWindow {
            sink_tokens,
            window,
        } => format!("汇聚词元（{sink_tokens} 个）必须少于窗口（{window} 个）。"),
        StreamError::PastContext {
            window,
            sink_tokens,
            context,
        } => format!(
            "窗口 {window} 加上 {sink_tokens} 个汇聚词元超过了模型 {context} 个字符的上下文：缓存里会出现它训练时从未见过的位置。"
        ),
        StreamError::Length { count, max } => {
            format!("这段文字有 {count} 个字符：请给出 2 到 {max} 个。")
        }
        StreamError::TooFewTokens { count } => {
            format!(
                "模型把这段文字读成 {count} 个词元：请至少给出 2 个词元，才能用一个去预测下一个。"
            )
        }
    }
}
