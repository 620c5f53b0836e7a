//! Users' files: the tensors of one's own attention (JSON, NumPy `.npy` and `.npz`,
//! safetensors) checked into the lab's shapes ([`import`]), the one safetensors reader that
//! models and users' files share, half-precision numbers, and a user's attention as the lab
//! shows it ([`imported`]) with what its heads do ([`head_roles`]), and a Hugging Face model folder's files read header first
//! ([`hf_folder`]).

pub mod found;
pub mod half;
pub mod head_roles;
pub mod hf_folder;
pub mod import;
pub mod imported;
pub mod imported_views;
pub mod json;
pub mod model_files;
pub mod npy;
pub mod safetensors;
