//! The phone's floating Controls button: when it steps aside. A pure rule, tested natively;
//! `views::app` listens to the page's scrolling and draws it.

/// The phone's floating Controls button while the page scrolls: tucked below the screen while
/// the page moves down (a reader's eyes go down the page, and the button would cover a line of
/// it), back as soon as it moves up, near its top, or near its end (where the page keeps room
/// under the button). A scroll counts once it has gone [`FabScroll::MOVE`] px one way, so a
/// finger's jitter does not make the button blink. Keyboard focus shows it whatever this says
/// (style/main.css).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FabScroll {
    pub tucked: bool,
    /// Where the scroll last turned (px from the page's top).
    anchor: f64,
}

impl FabScroll {
    /// How far one way a scroll goes before it moves the button, px.
    pub const MOVE: f64 = 24.0;
    /// Within this of the page's top or end the button shows, px.
    pub const EDGE: f64 = 96.0;

    /// Shown where it is (the controls' sheet just closed: the button that opens it again is in
    /// reach until the page next scrolls down).
    pub fn shown(self) -> Self {
        Self {
            tucked: false,
            ..self
        }
    }

    /// After a scroll to `y` px from the page's top, with `left` px of page below the screen.
    pub fn scrolled(self, y: f64, left: f64) -> Self {
        if !y.is_finite() || y <= Self::EDGE || left <= Self::EDGE {
            return Self {
                tucked: false,
                anchor: y,
            };
        }
        if y - self.anchor >= Self::MOVE {
            Self {
                tucked: true,
                anchor: y,
            }
        } else if self.anchor - y >= Self::MOVE {
            Self {
                tucked: false,
                anchor: y,
            }
        } else if self.tucked == (y > self.anchor) {
            // Still going the way it went: the turn is where it was furthest.
            Self { anchor: y, ..self }
        } else {
            self
        }
    }
}
