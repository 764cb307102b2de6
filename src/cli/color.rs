//! `--color WHEN`: anstream's colour choice as a command-line value, flattened into every
//! command that prints coloured text ([`ColorFlag`]). `auto` leaves the choice to anstream
//! (colour on a terminal; `NO_COLOR` turns it off, `CLICOLOR_FORCE` on); `always` and `never`
//! override both, as cargo's and nextest's `--color` do.

use anstream::ColorChoice;
use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};

/// The `--color` flag of a command.
#[derive(Args, Debug, Clone, Copy)]
pub struct ColorFlag {
    /// When to colour the human output.
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    color: Color,
}

impl ColorFlag {
    /// Makes the flag's choice that of everything the command prints from now on.
    pub fn apply(self) {
        self.color.apply();
    }
}

/// When the human report is coloured: anstream's [`ColorChoice`], read by clap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Color(ColorChoice);

impl Color {
    /// Makes this the choice of every anstream stream the process opens from now on, the
    /// terminal report's and [`outln!`](crate::cli::stdout)'s among them.
    fn apply(self) {
        self.0.write_global();
    }
}

impl ValueEnum for Color {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            Color(ColorChoice::Auto),
            Color(ColorChoice::Always),
            Color(ColorChoice::Never),
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self.0 {
            ColorChoice::Auto => PossibleValue::new("auto")
                .help("on a terminal, unless NO_COLOR is set; also elsewhere with CLICOLOR_FORCE"),
            ColorChoice::Always | ColorChoice::AlwaysAnsi => {
                PossibleValue::new("always").help("also into a pipe or file, even with NO_COLOR")
            }
            ColorChoice::Never => {
                PossibleValue::new("never").help("plain text, even with CLICOLOR_FORCE")
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_read_as_anstreams_choices() {
        for (name, choice) in [
            ("auto", ColorChoice::Auto),
            ("always", ColorChoice::Always),
            ("never", ColorChoice::Never),
        ] {
            assert_eq!(Color::from_str(name, false), Ok(Color(choice)));
        }
        assert!(Color::from_str("sometimes", false).is_err());
    }
}
