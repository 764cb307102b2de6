//! The `expect_silence` step: no matching line for a window, extended once by the load.

use super::engine_io::Next;
use super::execute::{Halt, Run};
use crate::blame::Symptom;
use crate::engine::CpuWait;
use crate::observer::without_bom;
use crate::report::WindowKind;
use crate::scenario::{Silence, Step};
use std::time::Duration;

use super::owed::EngineWait;

impl Run<'_> {
    pub(super) fn expect_silence(&mut self, step: &Step, silence: &Silence) -> Result<(), Halt> {
        self.halt_if(self.unread_command(silence.rule))?;
        let duration = self.resolve(&silence.duration);
        let start = self.engine.session().now();
        let mut deadline = start + duration;
        // Silence proves nothing while the engine could not run: a window the machine's load
        // held the engine or usicheck up in is extended once by that delay.
        let engine_cpu_wait = silence
            .rule
            .map(|_| EngineWait::Since(CpuWait::of(self.engine.session().pid())));
        let mut extended = false;
        // Lines already in the pipe do not break it, but a reply to the commands sent just
        // before does, even one that came before the window opened (usicheck may be
        // descheduled between sending and opening).
        let opened = self
            .sent_at
            .take()
            .unwrap_or_else(|| self.engine.session().elapsed_micros());
        let label = match &silence.pattern {
            Some(p) => format!(
                "no line matching `{}` for {} ms",
                p.as_str(),
                duration.as_millis()
            ),
            None => format!("no output for {} ms", duration.as_millis()),
        };
        self.note_window(WindowKind::Silence, duration, silence.rule, label);
        let mut unsolicited = self.engine.observer().protocol().unsolicited_readyoks();
        loop {
            let (line, message) = match self.read(deadline) {
                Next::Line(line, message, _) => (line, message),
                Next::Timeout if !extended => {
                    extended = true;
                    let held_up = self.held_up_since(start, engine_cpu_wait.as_ref());
                    deadline += Duration::from_micros(held_up.most());
                    continue;
                }
                Next::Timeout | Next::Over(_) => break,
            };
            // A stray `readyok` is USI-READY-001's violation, already recorded; it says
            // nothing about what this silence watches for.
            let stray_readyok =
                self.engine.observer().protocol().unsolicited_readyoks() > unsolicited;
            unsolicited = self.engine.observer().protocol().unsolicited_readyoks();
            let text = without_bom(&line.text);
            let breaks = !stray_readyok
                && line.at_micros >= opened
                && silence.pattern.as_ref().is_none_or(|p| p.is_match(text))
                && !silence.ignore.as_ref().is_some_and(|p| p.is_match(text));
            if breaks {
                let what = match &silence.pattern {
                    Some(p) => format!("no line matching `{}`", p.as_str()),
                    None => "no output".to_owned(),
                };
                // The engine's own search output answers nothing the silence follows: the
                // observer charged it.
                let own_search =
                    (self.engine.observer().protocol()).searches_on_its_own(&line, &message);
                let symptom = match self.wrong_kind_reply(&message) || own_search {
                    true => Symptom::AlreadyCharged,
                    false => Symptom::SilenceBroken,
                };
                let expected = format!("{what} for {} ms", duration.as_millis());
                let actual = format!("`{}`", line.quoted());
                let halt = self.fail(step, symptom, (silence.rule, None), expected, actual);
                return Err(halt.proved_by(line.entry));
            }
        }
        if let Some(rule) = silence.rule {
            self.judge.pass(rule, None);
        }
        Ok(())
    }
}
