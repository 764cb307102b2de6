//! Ending a session: `expect_exit`, the exit after `quit` (USI-QUIT-004), the replies still
//! owed when the session ends, and the transcript excerpt for the report.

use super::engine_io::Next;
use super::execute::{Halt, Run};
use crate::blame::{Missed, Owed, Symptom, missing_reply};
use crate::engine::{
    BoundedLog, Direction, Escalation, Event, Stream, Termination, TranscriptEntry,
};
use crate::scenario::{ExitStatus, ExpectExit, Step};
use std::time::Duration;

/// Transcript entries copied into the report.
const TAIL: usize = 30;
/// Of those, how many follow the line the evidence quotes.
const AFTER_EVIDENCE: usize = 5;
/// How long an engine a failed step left may take to exit on `quit` (at most T-QUIT) before
/// the signals: its exit is not judged, and what is still on its way out (a `usiok` held in
/// its stdout buffer, say) comes out at once from an engine that reads its input.
const UNJUDGED_EXIT_GRACE: Duration = Duration::from_secs(1);

impl Run<'_> {
    pub(super) fn expect_exit(&mut self, step: &Step, exit: &ExpectExit) -> Result<(), Halt> {
        self.halt_if(self.unread_command(exit.rule))?;
        self.halt_if(self.quit_ignored(exit.rule))?;
        let stdin_closed = self.exit_awaited;
        self.exit_awaited = true;
        let within = self.resolve(&exit.within);
        let Some(termination) = self.await_exit(self.engine.session().now() + within) else {
            return Err(self.fail(
                step,
                Symptom::BadExit,
                (exit.rule, None),
                format!("the engine exits within {} ms", within.as_millis()),
                "still running".to_owned(),
            ));
        };
        // An exit the engine was asked for must be clean (USI-QUIT-004, always-on); dying
        // before the request is judged by the step that saw it, and a step that checks the
        // exit status under its own rule owns that judgement.
        let requested = self.engine.session().exited_after_end_request();
        let wrong = match exit.status {
            ExitStatus::Any => None,
            ExitStatus::Success => (!termination.is_success()).then_some("exit status 0"),
            ExitStatus::OnRequest if !requested => Some("no exit before `quit` or EOF"),
            ExitStatus::OnRequest => matches!(termination, Termination::Signalled { .. })
                .then_some("an exit, not a signal"),
        };
        let owns_status =
            exit.rule.is_some() && (exit.status == ExitStatus::Success || wrong.is_some());
        if requested && !owns_status {
            self.judge_exit(&termination, stdin_closed);
        }
        if let Some(expected) = wrong {
            return Err(self.fail(
                step,
                Symptom::BadExit,
                (exit.rule, None),
                expected.to_owned(),
                format!("the engine {termination}"),
            ));
        }
        if let Some(rule) = exit.rule {
            self.judge.pass(rule, None);
        }
        Ok(())
    }

    /// An exit the engine was asked for (by `quit` or by closing its stdin) must be clean.
    pub(super) fn judge_exit(&mut self, termination: &Termination, stdin_closed: bool) {
        let when = match stdin_closed {
            true => "after its stdin was closed",
            false => "after quit",
        };
        self.engine.observer_mut().on_asked_exit(termination, when);
    }

    /// Ends the engine (quit, then the process group is killed) and checks its last lines.
    /// After `halted` steps the engine is left in whatever state the failure put it in (a
    /// search never answered, say): how it takes `quit` then is not judged, the failure is.
    /// Returns true, ending nothing, when the engine may stay warm for the next scenario
    /// ([`Self::may_stay_warm`]; `steps_passed`: none failed, though a requirement may have
    /// skipped the rest).
    pub(super) fn end_engine(&mut self, halted: bool, steps_passed: bool) -> bool {
        self.engine.release_cores();
        // An engine that got `usi` and never answered `usiok` failed the handshake: charged
        // to USI-HANDSHAKE-004 with the outcome, whichever step noticed it.
        let usi_sent_at = self
            .engine
            .session()
            .transcript()
            .entries()
            .head()
            .iter()
            .find(|entry| entry.direction == Direction::ToEngine && entry.text.trim() == "usi")
            .map(|entry| entry.at_micros);
        let no_usiok = missing_reply(Owed::Usiok, self.engine.observer());
        // Only after the full T-USIOK (or once the engine is gone): a scenario that ended
        // sooner says nothing about a slow start.
        let waited = usi_sent_at.is_some_and(|at| {
            self.engine.session().elapsed_micros().saturating_sub(at)
                >= self.settings.timeouts.usiok.as_micros() as u64
        });
        if let Some(usi_sent_at) = usi_sent_at
            && (waited || self.engine.session().is_over() || self.engine.session().stdout_closed())
            && !self.engine.observer().protocol().usi_answered()
            && !self.engine.observer().judge().violated(no_usiok)
        {
            let evidence = match self.engine.session().termination() {
                Some(Termination::Signalled { .. }) => format!("crash: {}", self.end_reason()),
                Some(Termination::Exited(_)) => {
                    format!("controlled exit: {}", self.end_reason())
                }
                None if self.engine.session().stdout_closed() => {
                    format!("hang: {}", self.end_reason())
                }
                None => format!(
                    "hang: nothing matching `usiok` within {} ms of `usi`",
                    (self.engine.session().elapsed_micros() - usi_sent_at) / 1000
                ),
            };
            // A late `usiok` is the engine's, but the wait is the user's to choose.
            let hint = if self.engine.session().termination().is_none() {
                " (T-USIOK; --usiok-timeout sets it)"
            } else {
                ""
            };
            self.engine.observer_mut().judge_mut().violation(
                no_usiok,
                None,
                format!("no `usiok`, {evidence}{hint}"),
            );
            self.missed_replies.push(Missed {
                owed: Owed::Usiok,
                rule: no_usiok,
            });
        }
        let now = self.engine.session().elapsed_micros();
        self.engine.observer_mut().on_end(now);
        let charged_before = self.engine.observer().judge().violated_rules();
        if self.may_stay_warm(steps_passed) && self.silent_after_the_steps() {
            return true;
        }
        // A warm process whose steps failed is left for a fresh one (`run_scenario`): how it
        // would take `quit` is judged nowhere, and waiting T-QUIT for a stuck one shows
        // nothing.
        if self.engine.session().is_over() || (self.resumed && !steps_passed) {
            let _ = self.engine.session_mut().quit(Duration::ZERO);
            return false;
        }
        self.engine.observer_mut().on_close_stdin();
        // With stdin closed, or after the engine already ignored its chance to exit, `quit`
        // cannot help: go straight to the signals. After halted steps (a search never
        // answered, say), how the engine takes `quit` is not judged: it gets a short grace,
        // not T-QUIT, for a stuck engine shows nothing more in 5 s while it takes the cores
        // of the other sessions. An engine the pre-flight showed ignoring this `quit`
        // (charged there) gets the signals at once: waiting T-QUIT again would show nothing
        // new.
        let patience = if self.exit_awaited || self.ignored_quit_fact().is_some() {
            Duration::ZERO
        } else if halted {
            self.settings.timeouts.quit.min(UNJUDGED_EXIT_GRACE)
        } else {
            self.settings.timeouts.quit
        };
        let ended_before_quit = self.engine.session().termination().is_some();
        let searching = self.engine.observer().protocol().searching();
        // Whether any stdout line reached usicheck before the end: then stdout is flushed,
        // and a `usiok` that comes only now is late, not held in a buffer.
        let stdout_before_end = {
            let entries = self.engine.session().transcript().entries();
            entries
                .head()
                .iter()
                .chain(entries.tail())
                .any(|e| e.direction == Direction::FromEngine)
        };
        // Whether the engine has its chance to exit on `quit` here: then one that needs the
        // signals ignored it, and its deadline is extended by the load, as a check's is.
        let exit_judged = !halted && !patience.is_zero();
        let report = match exit_judged {
            true => self.engine.session_mut().quit(patience),
            false => self.engine.session_mut().quit_unjudged(patience),
        };
        if report.escalation != Escalation::None && exit_judged {
            let rule = crate::blame::ignored_quit(searching);
            self.engine.observer_mut().judge_mut().violation(
                rule,
                None,
                format!(
                    "still running {} ms after `quit`: ended by usicheck's signals",
                    patience.as_millis()
                ),
            );
        }
        // Signals from usicheck's own escalation are the engine's failure to exit, judged
        // elsewhere; an exit of its own after `quit` must be clean (USI-QUIT-004), unless a
        // failure left the engine dying of what came before (a `position` it panicked on
        // while the `go` after it was not awaited).
        if let Some(termination) = report.termination
            && report.escalation == Escalation::None
            && !halted
            && !ended_before_quit
            && self.engine.session().exited_after_end_request()
        {
            let stdin_closed = self.exit_awaited && self.last_sent.trim() != "quit";
            self.judge_exit(&termination, stdin_closed);
        }
        let mut held_back = None;
        for event in report.seen.iter() {
            if let Event::Line(line) = event
                && line.stream == Stream::Stdout
            {
                let (message, _) = self.observe(line);
                if matches!(message, crate::usi::Message::UsiOk) {
                    held_back.get_or_insert_with(|| line.text.clone());
                }
            }
        }
        // A `usiok` that only arrives once the engine exits was held in an unflushed buffer:
        // that is the engine's output flushing (USI-ROBUST-006), not a missing reply; unless
        // the pre-flight saw this engine flush it in time.
        if let Some(text) = held_back
            && !stdout_before_end
            && !self.settings.facts.flushes_usiok
            && self.engine.observer().judge().violated(no_usiok)
        {
            let judge = self.engine.observer_mut().judge_mut();
            judge.forget(no_usiok);
            let flushing = crate::blame::no_usiok(true);
            judge.violation(
                flushing,
                None,
                format!("`{text}` arrived only when the engine exited: its stdout is not flushed"),
            );
            for missed in &mut self.missed_replies {
                if missed.rule == no_usiok {
                    missed.rule = flushing;
                }
            }
        }
        self.charged_at_end = (self.engine.observer().judge().violated_rules().into_iter())
            .find(|rule| !charged_before.contains(rule));
        false
    }

    /// Whether the engine has said nothing since the last step. What it said is judged in
    /// this scenario, as the `quit` that ends a process judges what it reads until the exit
    /// (a second `bestmove`), and the process is not kept: its lines would otherwise be read
    /// by the exchange that settles it, and belong to no scenario. Only what has arrived by
    /// now: waiting longer would judge more than a process ended at once shows.
    fn silent_after_the_steps(&mut self) -> bool {
        let until = self.engine.session().now();
        let mut said = false;
        loop {
            match self.read(until) {
                Next::Line(..) => said = true,
                Next::Timeout => return !said && self.pending.is_empty(),
                Next::Over(_) => return false,
            }
        }
    }

    /// Whether the engine may serve the next scenario without a doubt: the settings and the
    /// scenario allow it ([`super::RunSettings::may_share`]), the steps left no doubt, and the
    /// engine is alive, owes nothing, has no search running or abandoned and no `position`
    /// waiting for its `go`, and said nothing no command asked for. What its answers said (a
    /// late `bestmove`, a malformed `info`, charged by the always-on checks) is no doubt about
    /// its state; it still has to settle ([`super::warm`]) before it is kept.
    ///
    /// The steps left no doubt when they all passed (`steps_passed`) and charged nothing, or
    /// when one failed in a process started for the scenario: its verdicts stand there, its
    /// ending would not be judged, and the state the failure left is what the checks above
    /// and the settling look at. A failure in a warm process ends it: the scenario runs
    /// again in a process of its own, which may take the warm one's place.
    fn may_stay_warm(&self, steps_passed: bool) -> bool {
        let session = self.engine.session();
        let protocol = self.engine.observer().protocol();
        let steps_left_no_doubt = match steps_passed {
            true => self.judge.violated_rules().is_empty(),
            false => !self.resumed,
        };
        steps_left_no_doubt
            && self.settings.may_share(self.scenario)
            && !session.is_over()
            && session.termination().is_none()
            && !session.stdout_closed()
            && !protocol.computing()
            && protocol.search_kind().is_none()
            && !protocol.position_awaits_go()
            && !protocol.spoke_unprompted()
            && self.pending.is_empty()
            && self.missed_replies.is_empty()
    }

    /// The transcript excerpt for the report: around the engine line at transcript entry
    /// `evidence` (that line marked), else the last lines.
    pub(super) fn transcript_excerpt(&self, evidence: Option<u64>) -> Vec<String> {
        let entries = self.engine.session().transcript().entries();
        let kept: Vec<&TranscriptEntry> = entries.head().iter().chain(entries.tail()).collect();
        match evidence.and_then(|entry| kept_index(entries, entry)) {
            Some(at) => {
                let from = at.saturating_sub(TAIL - AFTER_EVIDENCE - 1);
                let to = (at + AFTER_EVIDENCE + 1).min(kept.len());
                (from..to)
                    .map(|i| match i == at {
                        true => format!("{}   <-- evidence", kept[i].quoted()),
                        false => kept[i].quoted(),
                    })
                    .collect()
            }
            None => {
                let from = kept.len().saturating_sub(TAIL);
                kept[from..].iter().map(|entry| entry.quoted()).collect()
            }
        }
    }
}

/// Where transcript entry `entry` is among the entries `log` kept (its head, then its tail);
/// `None` when it was omitted.
pub(super) fn kept_index(log: &BoundedLog<TranscriptEntry>, entry: u64) -> Option<usize> {
    let head = log.head().len() as u64;
    let tail_from = head + log.omitted();
    let index = match entry {
        entry if entry < head => entry,
        entry if entry >= tail_from && entry < log.total() => head + (entry - tail_from),
        _ => return None,
    };
    Some(index as usize)
}
