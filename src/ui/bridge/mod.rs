//! What connects the lab's state to the world outside its views: the address bar
//! ([`location`]), the host page's messages when embedded ([`embed`]), `window.attentionLab`
//! ([`js_api`]), files opened or fetched ([`files`], [`model_files`], a user's model in
//! [`own_model`]) and the learner's progress
//! kept between visits ([`progress`]). Above the state it drives, below the views.

pub mod embed;
pub mod files;
pub mod js_api;
pub mod location;
pub mod model_files;
pub mod own_model;
pub mod progress;
pub mod runs;
pub mod state_json;
pub mod tokenizer_module;
