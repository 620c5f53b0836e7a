//! Time for durations.

/// Milliseconds from an arbitrary origin: `performance.now()` in the browser, a monotonic clock
/// natively.
pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        // Looked up once: finding `window.performance` through the bindings costs more than
        // `now()` itself, and views read the clock on every redraw.
        thread_local! {
            static PERFORMANCE: Option<web_sys::Performance> =
                web_sys::window().and_then(|w| w.performance());
        }
        PERFORMANCE.with(|p| p.as_ref().map_or(0.0, web_sys::Performance::now))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
    }
}
