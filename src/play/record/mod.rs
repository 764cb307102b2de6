//! Game records a GUI opens (ShogiHome, Shogidokoro, Kifu for Windows, …): `play` writes
//! every game as CSA (V2.2) and KIF, and `--openings` reads them back as start positions.
//!
//! KIF is Shift_JIS in a `.kif` file and UTF-8 in a `.kifu` file, as GUIs expect; CSA is
//! ASCII but for the players' names.

mod csa;
mod csa_read;
mod encoding;
mod ending;
mod kif;
mod kif_read;
mod moves;
mod notation;
mod read;

pub use csa::csa;
pub use csa_read::read_csa;
pub use encoding::{Encoding, decode};
pub use kif::kif;
pub use kif_read::read_kif;
pub use read::{ReadError, is_record, read_record};
