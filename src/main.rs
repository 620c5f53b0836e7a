//! Entry point of the web app: mounts the lab into the page. Everything else is in the library.

fn main() {
    #[cfg(target_arch = "wasm32")]
    attention_lab::ui::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!(
        "Attention Lab runs in the browser: `make serve`, then open the printed address.\n\
         For the numbers on the command line, use `attention-trace` (JSON on stdin)."
    );
}
