//! Game records a GUI opens (ShogiHome, Shogidokoro, Kifu for Windows, …): `play` writes
//! every game as CSA (V2.2) and KIF.
//!
//! KIF is Shift_JIS in a `.kif` file and UTF-8 in a `.kifu` file, as GUIs expect; CSA is
//! ASCII but for the players' names.

mod csa;
mod encoding;
mod kif;
mod moves;
mod notation;

pub use csa::csa;
pub use encoding::{Encoding, decode};
pub use kif::kif;
