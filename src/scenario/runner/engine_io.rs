//! Reading the engine: every stdout line through the always-on checks, deadlines that hold
//! under a flood, and lines kept across a `sleep` within bounds.

use super::execute::Run;
use crate::engine::{Arrival, Line, SendError, Termination, Wait};
use crate::observer::{Heard, Judge};
use crate::rules::RuleId;
use crate::usi::Message;
use std::time::{Duration, Instant};

/// Lines kept for the next `expect` after a `sleep`, and their bytes at most; older ones are
/// dropped (a flood of long lines must not fill memory).
const MAX_PENDING: usize = 10_000;
const MAX_PENDING_BYTES: usize = 16 << 20;

/// What reading the next line produced.
#[allow(clippy::large_enum_variant)] // one short-lived value per line read, never stored
pub(super) enum Next {
    /// A line, its message, and whether it is a stale reply to an earlier `go`.
    Line(Line, Message, bool),
    Timeout,
    /// Nothing more can arrive; says why.
    Over(String),
}

impl Run<'_> {
    /// Why a write failed: a closed stdin usually means the engine has ended, and how it ended
    /// is the evidence (it reaches the driver a moment after the pipe breaks).
    pub(super) fn send_failure(&mut self, error: SendError) -> String {
        if matches!(error, SendError::Closed)
            && let Some(termination) = self.await_exit(
                self.engine.session().now() + self.engine.session().options().exit_grace,
            )
        {
            return format!("the engine {termination} (its stdin is closed)");
        }
        error.to_string()
    }

    /// Reads (and checks) the engine's stdout until it ends or `deadline` passes (a line that
    /// arrived after it ends the wait, as in [`Self::read`]); how it ended, if it did.
    pub(super) fn await_exit(&mut self, deadline: Instant) -> Option<Termination> {
        let mut wait = Wait::for_exit(self.engine.session(), deadline);
        while self.engine.session().termination().is_none() {
            if let Arrival::Deadline | Arrival::Over = self.next(&mut wait) {
                break;
            }
        }
        self.engine.session().termination()
    }

    /// The next read of `wait`: a stdout line comes judged by the always-on checks (a misread
    /// position charged to the running step's rule), and the captures follow it.
    fn next(&mut self, wait: &mut Wait) -> Arrival<Heard> {
        let misread = misread(&self.misread, &mut self.judge);
        let arrival = self.engine.next(wait, misread);
        if let Arrival::OnTime(Heard::Line {
            line,
            message,
            stale,
        })
        | Arrival::Late(Heard::Line {
            line,
            message,
            stale,
        }) = &arrival
        {
            self.capture(line, message, *stale);
        }
        arrival
    }

    /// Runs the always-on checks on a stdout line read outside a wait (by `quit`) and keeps the
    /// captures current. Returns the message and whether it is a stale reply to an earlier
    /// `go`.
    pub(super) fn observe(&mut self, line: &Line) -> (Message, bool) {
        let misread = misread(&self.misread, &mut self.judge);
        let (message, stale) = self.engine.judge_line(line, misread);
        self.capture(line, &message, stale);
        (message, stale)
    }

    /// Keeps the captures current with a stdout line the observer has judged.
    fn capture(&mut self, line: &Line, message: &Message, stale: bool) {
        match message {
            Message::IdName(name) => {
                self.engine_name.get_or_insert_with(|| kept(name, line));
            }
            Message::IdAuthor(author) => {
                self.engine_author.get_or_insert_with(|| kept(author, line));
            }
            Message::BestMove(best) => {
                self.captures.bestmove = Some(best.best.to_string());
                self.captures.ponder = best.ponder.as_ref().map(ToString::to_string);
            }
            Message::ReadyOk
                if !stale
                    && self.sent_during_search
                    && self.engine.observer().protocol().searching() =>
            {
                self.read_during_search = true;
            }
            Message::Checkmate(checkmate) => {
                let text = checkmate.to_string();
                self.captures.checkmate =
                    Some(text.trim_start_matches("checkmate").trim().to_owned());
            }
            _ => {}
        }
    }

    /// The next stdout line from the engine (checked), not looking at `pending`.
    ///
    /// A late stdout line (the one [`Wait`] hands over after the deadline) is kept in
    /// `pending` for the next step.
    pub(super) fn read(&mut self, deadline: Instant) -> Next {
        let mut wait = Wait::until(self.engine.session(), deadline);
        loop {
            match self.next(&mut wait) {
                Arrival::OnTime(Heard::Line {
                    line,
                    message,
                    stale,
                }) => return Next::Line(line, message, stale),
                Arrival::Late(Heard::Line {
                    line,
                    message,
                    stale,
                }) => {
                    self.keep_pending(line, message, stale);
                    return Next::Timeout;
                }
                Arrival::OnTime(Heard::Other(_)) => {}
                Arrival::Late(Heard::Other(_)) | Arrival::Deadline => return Next::Timeout,
                Arrival::Over => return Next::Over(self.end_reason()),
            }
        }
    }

    pub(super) fn next_line(&mut self, deadline: Instant) -> Next {
        match self.pending.pop_front() {
            Some((line, message, stale)) => {
                self.pending_bytes -= line.text.len();
                Next::Line(line, message, stale)
            }
            None => self.read(deadline),
        }
    }

    /// Reads until the first fresh line (not a stale reply to an earlier `go`) whose message
    /// is `wanted`, or `deadline`; the lines before it go through the observer and are dropped.
    pub(super) fn first_line(
        &mut self,
        deadline: Instant,
        wanted: impl Fn(&Message) -> bool,
    ) -> Option<Line> {
        loop {
            match self.next_line(deadline) {
                Next::Line(line, message, stale) if !stale && wanted(&message) => {
                    return Some(line);
                }
                Next::Line(..) => {}
                Next::Timeout | Next::Over(_) => return None,
            }
        }
    }

    pub(super) fn end_reason(&self) -> String {
        match self.engine.session().termination() {
            Some(termination) => format!("the engine {termination}"),
            None if self.engine.session().stdout_closed() => {
                "the engine closed its stdout".to_owned()
            }
            None => "the engine stopped responding".to_owned(),
        }
    }

    /// Keeps a line read ahead for the next `expect`, dropping the oldest beyond the bounds.
    pub(super) fn keep_pending(&mut self, line: Line, message: Message, stale: bool) {
        self.pending_bytes += line.text.len();
        self.pending.push_back((line, message, stale));
        while self.pending.len() > MAX_PENDING || self.pending_bytes > MAX_PENDING_BYTES {
            let Some((dropped, _, _)) = self.pending.pop_front() else {
                break;
            };
            self.pending_bytes -= dropped.text.len();
        }
    }

    pub(super) fn sleep(&mut self, duration: Duration) {
        let deadline = self.engine.session().now() + duration;
        while let Next::Line(line, message, stale) = self.read(deadline) {
            self.keep_pending(line, message, stale);
        }
        // Nothing more can arrive (or the time is up): keep the sleep's length regardless.
        let now = self.engine.session().now();
        if now < deadline
            && (self.engine.session().is_over() || self.engine.session().stdout_closed())
        {
            self.engine.session().sleep(deadline - now);
        }
    }
}

/// The running step's misread rule (and part), with the scenario's judge it is charged in
/// (see [`crate::observer::Observer::on_line`]).
fn misread<'a>(
    misread: &'a Option<(RuleId, Option<String>)>,
    judge: &'a mut Judge,
) -> Option<(RuleId, Option<&'a str>, &'a mut Judge)> {
    misread
        .as_ref()
        .map(|(rule, part)| (*rule, part.as_deref(), judge))
}

/// `text`, the end of `line`, as it is kept beyond the line (in every scenario's report and
/// the certificate): capped like a [quote](crate::quote), counting the bytes the driver
/// already cut from the line's end.
fn kept(text: &str, line: &Line) -> String {
    let cut_by_driver = line.raw_len.saturating_sub(line.text.len() as u64);
    crate::quote::quote_of(text, text.len() as u64 + cut_by_driver).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_cut_by_the_driver_is_kept_capped_with_the_bytes_the_engine_sent() {
        let mut line = Line::stdout(&format!("id name {}", "x".repeat(1 << 20)), 0);
        line.raw_len = 104_857_608;
        line.truncated = true;
        let Message::IdName(name) = Message::parse(&line.text).0 else {
            panic!("an id name line")
        };
        let kept = kept(&name, &line);
        assert!(kept.starts_with(&"x".repeat(200)), "{kept}");
        assert!(
            kept.ends_with("x… (104,857,600 bytes, first 200 shown)"),
            "{kept}"
        );
        assert_eq!(
            super::kept("Lesserkai", &Line::stdout("id name Lesserkai", 0)),
            "Lesserkai"
        );
    }
}
