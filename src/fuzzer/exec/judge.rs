//! Judging what the engine wrote: each line, judged by the observer on its way, read for what
//! the executor counts, its newly violated rules turned into violations (noted, counted as
//! known, or ending the session), and the engine's death described.

use crate::engine::{Arrival, Event, Line, Termination, Wait, sanitise};
use crate::fuzzer::known::Known;
use crate::fuzzer::oracle::{Oracle, Violation};
use crate::fuzzer::transport::Transport;
use crate::observer::{CLOCK_RULES, GoKind, Heard};
use crate::rules::{Outcome, RuleId};

use super::{Run, Step, Stop};

impl<'a, T: Transport> Run<'a, T> {
    /// The next read of `wait`, what it brought taken in ([`Self::take`]).
    pub(super) fn read_next(&mut self, wait: &mut Wait) -> Result<Arrival<()>, Stop> {
        // The search owed before the line: the observer has judged the line when it comes.
        let owed = self.engine.observer().protocol().owed_search();
        Ok(match self.engine.next(wait, None) {
            Arrival::OnTime(heard) => {
                self.take(heard, owed)?;
                Arrival::OnTime(())
            }
            Arrival::Late(heard) => {
                self.take(heard, owed)?;
                Arrival::Late(())
            }
            Arrival::Deadline => Arrival::Deadline,
            Arrival::Over => Arrival::Over,
        })
    }

    /// What the engine wrote (`owed`: the search it owed before): a stdout line's newly
    /// violated rules turned into violations, its exit a death.
    fn take(&mut self, heard: Heard, owed: Option<GoKind>) -> Step {
        match heard {
            Heard::Line { line, .. } => self.judged(line, owed),
            Heard::Other(Event::Line(line)) => {
                self.last_message = Some(line.text);
                Ok(())
            }
            Heard::Other(Event::Exited { termination, .. }) => {
                Err(self.fatal(self.exited(termination)))
            }
            Heard::Other(Event::Eof { .. }) => Ok(()),
        }
    }

    /// A stdout line the observer judged: the search it answered, or the released search it
    /// came from, and the violations it showed.
    fn judged(&mut self, line: Line, owed: Option<GoKind>) -> Step {
        self.stdout_seen = true;
        if let Some(released) = &mut self.released
            && line.text.starts_with("info ")
            && !line.text.starts_with("info string")
        {
            released.last_info = Some((line.at_micros, line.text.clone()));
        }
        let checkmate = line.text.split_whitespace().next() == Some("checkmate");
        let terminal = checkmate || line.text.split_whitespace().next() == Some("bestmove");
        let wrong_kind = terminal && owed.is_some_and(|kind| checkmate != (kind == GoKind::Mate));
        let protocol = self.engine.observer().protocol();
        if protocol.search_kind().is_none() {
            self.released = None;
        }
        if owed.is_some() && protocol.owed_search().is_none() {
            self.answered += 1;
        }
        let step = self.collect(wrong_kind);
        self.last_message = Some(line.text);
        step
    }

    /// The observer's violations not seen before (a WARN or FAIL under the profile): those
    /// that leave the protocol in step are noted and the session goes on; the first of the
    /// others, the most certain oracle first, ends it, and the rest are noted. `wrong_kind`:
    /// the line was a terminal reply of the wrong kind for the search it answered
    /// ([`crate::blame::one_line`]).
    fn collect(&mut self, wrong_kind: bool) -> Step {
        let judge = self.engine.observer().judge();
        let mut fresh: Vec<(Oracle, RuleId, String, Outcome)> = judge
            .violated_rules()
            .into_iter()
            .filter_map(|rule| judge.verdict(rule))
            .filter(|v| matches!(v.outcome, Outcome::Fail | Outcome::Warn))
            .filter(|v| !self.seen.contains(&v.rule))
            .filter(|v| self.judge_clock || !CLOCK_RULES.contains(&v.rule))
            .map(|v| (Oracle::of(v.rule), v.rule, v.reason.clone(), v.outcome))
            .collect();
        fresh.sort_by_key(|(oracle, ..)| *oracle);
        let mut fatal = None;
        for (oracle, rule, detail, outcome) in fresh {
            self.seen.insert(rule);
            if !crate::blame::one_line(rule, wrong_kind) {
                continue;
            }
            let violation = Violation {
                outcome: Some(outcome),
                ..self.violation(oracle, rule, detail)
            };
            if oracle == Oracle::Output {
                self.noted.push(violation);
            } else if self.known.contains(&violation) && Known::recoverable(&violation) {
                // The reply came (wrong, late or doubled): the exchange is still readable.
                self.known_met.push(violation);
            } else if fatal.is_none() {
                fatal = Some(violation);
            } else {
                // Another rule the same line broke (an illegal move that is no move at all
                // breaks USI-BESTMOVE-002 and USI-BESTMOVE-007): charged as the runner and
                // `play` charge it, though the session ends with the first.
                self.noted.push(violation);
            }
        }
        fatal.map_or(Ok(()), |v| Err(self.fatal(v)))
    }

    /// The engine ended before `quit`: a crash on a signal, otherwise a controlled exit.
    pub(super) fn exited(&self, termination: Termination) -> Violation {
        let rule = crate::blame::death(self.engine.observer()).rule;
        let said = self
            .last_message
            .as_deref()
            .map(|m| format!(", last line `{}`", sanitise(m)))
            .unwrap_or_default();
        let last_text = match (self.last_sent, &self.handshake_option) {
            (Some(cmd), _) => cmd.text.as_str(),
            (None, Some(line)) => line.as_str(),
            (None, None) => "",
        };
        let after = format!("after `{}`", sanitise(last_text.trim_end()));
        match termination {
            Termination::Signalled { .. } => {
                self.violation(Oracle::Crash, rule, format!("{termination} {after}{said}"))
            }
            Termination::Exited(_) => {
                self.violation(Oracle::Exit, rule, format!("{termination} {after}{said}"))
            }
        }
    }
}
