//! Lines to send, with `${capture}` substitution.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// A value captured from the session, substituted into `send` lines at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Capture {
    /// `${bestmove.move}`: the move token of the last `bestmove` line.
    BestmoveMove,
    /// `${bestmove.ponder}`: its ponder move (the scenario is skipped if there was none).
    BestmovePonder,
    /// `${checkmate.moves}`: the argument of the last `checkmate` line.
    CheckmateMoves,
    /// `${position}`: the last `position` line sent.
    Position,
    /// `${position.with_bestmove}`: that line with the last best move appended (adding
    /// `moves` when needed): the position the opponent now faces.
    PositionWithBestmove,
    /// `${position.with_ponder}`: that line with the best move and the ponder move appended:
    /// what to send before `go ponder`.
    PositionWithPonder,
    /// `${option.name}`: the option of the running `for_each_option` round.
    OptionName,
}

impl Capture {
    pub const ALL: [Capture; 7] = [
        Capture::BestmoveMove,
        Capture::BestmovePonder,
        Capture::CheckmateMoves,
        Capture::Position,
        Capture::PositionWithBestmove,
        Capture::PositionWithPonder,
        Capture::OptionName,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Capture::BestmoveMove => "bestmove.move",
            Capture::BestmovePonder => "bestmove.ponder",
            Capture::CheckmateMoves => "checkmate.moves",
            Capture::Position => "position",
            Capture::PositionWithBestmove => "position.with_bestmove",
            Capture::PositionWithPonder => "position.with_ponder",
            Capture::OptionName => "option.name",
        }
    }

    fn from_name(name: &str) -> Option<Capture> {
        Capture::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// One piece of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Text(String),
    Capture(Capture),
}

/// A line to send: literal text and `${capture}` references; `$$` writes a literal `$`.
///
/// ```
/// use usicheck::scenario::{Capture, Template};
/// let t: Template = "position startpos moves ${bestmove.move}".parse().unwrap();
/// assert_eq!(t.captures().collect::<Vec<_>>(), [Capture::BestmoveMove]);
/// let line = t.render(|c| (c == Capture::BestmoveMove).then(|| "7g7f".to_string())).unwrap();
/// assert_eq!(line, "position startpos moves 7g7f");
/// assert!("${nope}".parse::<Template>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    segments: Vec<Segment>,
}

/// A malformed template.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseTemplateError {
    #[error("unterminated `${{` in `{0}`")]
    Unterminated(String),
    #[error(
        "unknown capture `${{{0}}}`; known: bestmove.move, bestmove.ponder, checkmate.moves, \
         position, position.with_bestmove, position.with_ponder"
    )]
    UnknownCapture(String),
    #[error("a line to send must not contain a line break; use `send_raw` for exact bytes")]
    LineBreak,
}

impl Template {
    /// A template of literal text only (no substitution).
    pub fn literal(text: impl Into<String>) -> Template {
        Template {
            segments: vec![Segment::Text(text.into())],
        }
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The captures the template refers to.
    pub fn captures(&self) -> impl Iterator<Item = Capture> + '_ {
        self.segments.iter().filter_map(|s| match s {
            Segment::Capture(c) => Some(*c),
            Segment::Text(_) => None,
        })
    }

    /// Substitutes captures; `Err` names the first capture `value` has no value for.
    pub fn render(&self, value: impl Fn(Capture) -> Option<String>) -> Result<String, Capture> {
        let mut out = String::new();
        for segment in &self.segments {
            match segment {
                Segment::Text(text) => out.push_str(text),
                Segment::Capture(c) => out.push_str(&value(*c).ok_or(*c)?),
            }
        }
        Ok(out)
    }
}

impl std::str::FromStr for Template {
    type Err = ParseTemplateError;

    fn from_str(source: &str) -> Result<Self, Self::Err> {
        if source.contains(['\n', '\r']) {
            return Err(ParseTemplateError::LineBreak);
        }
        let mut segments = Vec::new();
        let mut text = String::new();
        let mut rest = source;
        while let Some(at) = rest.find('$') {
            text.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some(tail) = after.strip_prefix('$') {
                text.push('$');
                rest = tail;
            } else if let Some(inner) = after.strip_prefix('{') {
                let end = inner
                    .find('}')
                    .ok_or_else(|| ParseTemplateError::Unterminated(source.to_owned()))?;
                let name = &inner[..end];
                let capture = Capture::from_name(name)
                    .ok_or_else(|| ParseTemplateError::UnknownCapture(name.to_owned()))?;
                if !text.is_empty() {
                    segments.push(Segment::Text(std::mem::take(&mut text)));
                }
                segments.push(Segment::Capture(capture));
                rest = &inner[end + 1..];
            } else {
                text.push('$');
                rest = after;
            }
        }
        text.push_str(rest);
        if !text.is_empty() || segments.is_empty() {
            segments.push(Segment::Text(text));
        }
        Ok(Template { segments })
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for segment in &self.segments {
            match segment {
                Segment::Text(text) => f.write_str(&text.replace('$', "$$"))?,
                Segment::Capture(c) => write!(f, "${{{}}}", c.name())?,
            }
        }
        Ok(())
    }
}

impl Serialize for Template {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Template {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let source = String::deserialize(deserializer)?;
        source.parse().map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Template {
    fn schema_name() -> Cow<'static, str> {
        "Template".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "One line to send (no line break), with ${bestmove.move}, ${bestmove.ponder}, ${checkmate.moves}, ${position}, ${position.with_bestmove}, ${position.with_ponder}; $$ is a literal $.",
            "type": "string",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn dollar_escapes_and_errors() {
        let t: Template = "a $$ b $x ${position.with_ponder}".parse().unwrap();
        assert_eq!(t.to_string(), "a $$ b $$x ${position.with_ponder}");
        assert_eq!(t.render(|_| Some("P".into())).unwrap(), "a $ b $x P");
        assert_eq!(
            t.render(|_| None),
            Err(Capture::PositionWithPonder),
            "a missing capture is reported, not substituted"
        );
        assert!(matches!(
            "x ${position".parse::<Template>(),
            Err(ParseTemplateError::Unterminated(_))
        ));
        assert_eq!(
            "a\nb".parse::<Template>(),
            Err(ParseTemplateError::LineBreak)
        );
        assert_eq!("".parse::<Template>().unwrap().to_string(), "");
    }

    proptest! {
        #[test]
        fn parse_never_panics_and_display_round_trips(text in r"[a-z $\{\}.]{0,40}") {
            if let Ok(t) = text.parse::<Template>() {
                prop_assert_eq!(t.to_string().parse::<Template>().unwrap(), t);
            }
        }
    }
}
