//! How fast anything that plays by itself may go: the FlashAttention player and the generator
//! step at a pace a reader can follow, and at most one step a second when the reader's system
//! asks for reduced motion (`prefers-reduced-motion: reduce`).

use std::time::Duration;

/// The slowest a player goes, and the fastest it may go under reduced motion.
pub const CALM_STEP: Duration = Duration::from_secs(1);

/// The generator's pause between steps while playing.
pub const GENERATE_PACE: Duration = Duration::from_millis(120);

/// The generator's pause between played steps, given whether reduced motion is asked for.
pub fn generate_pace(reduced_motion: bool) -> Duration {
    if reduced_motion {
        CALM_STEP
    } else {
        GENERATE_PACE
    }
}
