//! The Learn mode's rules: each chapter's predict-then-reveal answer, and the learner's progress
//! (chapters seen, answers given) as the browser stores it (local storage, nothing sent).

use std::collections::BTreeMap;

use attention_core::teaching::Chapter;
use serde_json::{Value, json};

/// The right choice of a chapter's question (its index among the choices), if it has one.
pub fn answer(chapter: Chapter) -> Option<usize> {
    Some(match chapter {
        Chapter::Tokens => 1,
        Chapter::Qkv => 1,
        Chapter::Scaling => 2,
        Chapter::Softmax => 1,
        Chapter::Masks => 1,
        Chapter::Positions => 1,
        Chapter::Windows => 1,
        Chapter::Taming => 1,
        Chapter::Multihead => 1,
        Chapter::Gqa => 2,
        Chapter::Cross => 1,
        Chapter::Layernorm => 0,
        Chapter::Stability => 0,
        Chapter::Complexity => 1,
        Chapter::Flash => 1,
        Chapter::KvCache => 1,
        Chapter::Streaming => 1,
        Chapter::Circuits => 1,
        Chapter::Variants => 1,
        Chapter::DeltaRule => 1,
        Chapter::Hybrids => 1,
        Chapter::Exercises => return None,
    })
}

/// What the learner has done: the choice made for each chapter's question (by chapter id), and
/// the chapters opened.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Progress {
    pub answers: BTreeMap<String, usize>,
    pub seen: Vec<String>,
}

/// The key under which the browser keeps the progress.
pub const STORAGE_KEY: &str = "attention-lab.learn.v1";

impl Progress {
    pub fn answered(&self, chapter: Chapter) -> Option<usize> {
        self.answers.get(chapter.id()).copied()
    }

    pub fn answer(&mut self, chapter: Chapter, choice: usize) {
        self.answers.insert(chapter.id().to_string(), choice);
    }

    pub fn see(&mut self, chapter: Chapter) {
        if !self.seen.iter().any(|s| s == chapter.id()) {
            self.seen.push(chapter.id().to_string());
        }
    }

    pub fn has_seen(&self, chapter: Chapter) -> bool {
        self.seen.iter().any(|s| s == chapter.id())
    }

    /// Questions answered right, and questions in all.
    pub fn score(&self) -> (usize, usize) {
        let questions: Vec<Chapter> = Chapter::ALL
            .into_iter()
            .filter(|&c| answer(c).is_some())
            .collect();
        let right = questions
            .iter()
            .filter(|&&c| self.answered(c).is_some() && self.answered(c) == answer(c))
            .count();
        (right, questions.len())
    }

    pub fn to_json(&self) -> String {
        json!({"answers": self.answers, "seen": self.seen}).to_string()
    }

    /// Reads what `to_json` wrote; anything unreadable (an old or edited entry) counts as no
    /// progress, and unknown chapters or choices out of range are dropped.
    pub fn from_json(text: &str) -> Self {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return Self::default();
        };
        let answers = value["answers"]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter(|(id, _)| Chapter::from_id(id).is_some())
                    .filter_map(|(id, v)| {
                        Some((id.clone(), v.as_u64().filter(|&c| c < 3)? as usize))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let seen = value["seen"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str())
                    .filter(|id| Chapter::from_id(id).is_some())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        Self { answers, seen }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chapter_but_the_exercises_has_a_question() {
        for chapter in Chapter::ALL {
            assert_eq!(answer(chapter).is_none(), chapter == Chapter::Exercises);
            assert!(answer(chapter).is_none_or(|a| a < 3));
        }
    }

    #[test]
    fn progress_round_trips_and_ignores_what_it_cannot_use() {
        let mut p = Progress::default();
        p.answer(Chapter::Scaling, 2);
        p.answer(Chapter::Softmax, 0);
        p.see(Chapter::Scaling);
        p.see(Chapter::Scaling);
        assert_eq!(p.seen, vec!["scaling"]);
        assert_eq!(p.score(), (1, 21));
        assert_eq!(Progress::from_json(&p.to_json()), p);
        assert_eq!(Progress::from_json("not json"), Progress::default());
        let odd = Progress::from_json(
            r#"{"answers": {"scaling": 9, "nope": 1, "masks": 1}, "seen": ["x", "masks", 3]}"#,
        );
        assert_eq!(odd.answered(Chapter::Masks), Some(1));
        assert_eq!(odd.answered(Chapter::Scaling), None);
        assert_eq!(odd.seen, vec!["masks"]);
    }
}
