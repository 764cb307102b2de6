//! Delta debugging over the command list: the smallest sub-list (by removing chunks, then
//! single commands) that still fails the same oracle under the same rule, re-running the engine
//! for every candidate. A death is first charged to the right command (see [`shrink`]).

use super::oracle::{Oracle, Violation};
use super::plan::Cmd;

/// How much re-running a shrink may cost.
#[derive(Copy, Clone, Debug)]
pub struct Budget {
    pub runs: usize,
}

/// Re-runs the delta debugging leaves for charging a death again on the shrunk list.
const DEATH_RERUNS_KEPT: usize = 2;

/// Shrinks `cmds`, which failed with `key`, using `fails` to re-run a candidate (it returns
/// the violation seen, if any). Returns the smallest failing list found and its violation.
///
/// A failure seen in the handshake (no step) needs none of the commands: they are all cut
/// without a run. When no shorter list fails again (a race the re-runs lost, or no time left
/// to run one), the list is the session [`as_found`].
///
/// A crash or an exit is charged to the last command sent before it showed, which the engine
/// may not have read yet: a crash at `go ponder` shows when the `ponderhit` sent right after
/// finds the engine gone. So while the session cut before the charged command still ends in
/// the same kind of death, the death (and its rule) moves to the earlier command: before the
/// delta debugging, and once more on the list it kept.
pub fn shrink(
    cmds: &[Cmd],
    first: Violation,
    budget: Budget,
    mut fails: impl FnMut(&[Cmd]) -> Option<Violation>,
) -> (Vec<Cmd>, Violation) {
    // Seen in the handshake, before the first command was sent: the commands played no part.
    if first.step.is_none() {
        return (Vec::new(), first);
    }
    let shown = as_found(cmds, &first).len();
    let mut runs = 0;
    let mut best = (cmds.to_vec(), first);
    move_death_to_its_cause(&mut best, budget, &mut runs, &mut fails);
    // Runs kept back for the second pass over a death, below.
    let reserve = match best.1.oracle.is_death() {
        true => DEATH_RERUNS_KEPT,
        false => 0,
    };
    let limit = budget.runs.saturating_sub(reserve);
    let key = best.1.key();
    let mut attempt = |candidate: &[Cmd], runs: &mut usize| -> Option<Violation> {
        if !super::plan::well_formed(candidate) {
            return None;
        }
        *runs += 1;
        fails(candidate).filter(|v| v.key() == key)
    };
    // Commands after the failing one rarely matter: try cutting them all first.
    if let Some(step) = best.1.step
        && step + 1 < best.0.len()
        && let Some(v) = attempt(&best.0[..=step], &mut runs)
    {
        best = (best.0[..=step].to_vec(), v);
    }
    let mut chunks = 2usize;
    while best.0.len() > 1 && runs < limit {
        let len = best.0.len();
        let size = len.div_ceil(chunks);
        let mut reduced = false;
        for start in (0..len).step_by(size) {
            if runs >= limit {
                break;
            }
            let end = (start + size).min(len);
            let candidate: Vec<Cmd> = best.0[..start]
                .iter()
                .chain(&best.0[end..])
                .cloned()
                .collect();
            if let Some(v) = attempt(&candidate, &mut runs) {
                best = (candidate, v);
                chunks = (chunks - 1).max(2);
                reduced = true;
                break;
            }
        }
        if !reduced {
            if chunks >= len {
                break;
            }
            chunks = (chunks * 2).min(len);
        }
    }
    // Once more on the shrunk list: a re-run disturbed by load (a death seen as a hang) stops
    // the first pass, and a short list costs only a run or two.
    move_death_to_its_cause(&mut best, budget, &mut runs, &mut fails);
    acquit_commands_a_death_comes_without(&mut best, budget, &mut runs, &mut fails);
    if best.0.len() == cmds.len() {
        best.0.truncate(shown);
    }
    best
}

/// The commands of `cmds` up to the one after which `v` showed: what was sent later played no
/// part in it, and a reproducer that sends it reaches the engine's other deviations instead,
/// when the symptom is a race the replay loses. All of them when it showed at the closing
/// `isready` or `quit`, none when in the handshake.
pub fn as_found<'a>(cmds: &'a [Cmd], v: &Violation) -> &'a [Cmd] {
    &cmds[..v.step.map_or(0, |step| (step + 1).min(cmds.len()))]
}

/// Longest shrunk list whose commands are each tried away after a death.
const ACQUITTAL_LEN: usize = 8;

/// A death is charged to the prime suspect among the commands sent since the engine last
/// showed it was alive ([`crate::blame::death`]): an odd line before a `go` it aborts on is
/// charged before the `go`. On a short shrunk list, each command the engine still dies without
/// (the same kind of death, whatever its rule then) is removed, so that the death is charged
/// among the commands that cause it.
fn acquit_commands_a_death_comes_without(
    best: &mut (Vec<Cmd>, Violation),
    budget: Budget,
    runs: &mut usize,
    fails: &mut impl FnMut(&[Cmd]) -> Option<Violation>,
) {
    let oracle = best.1.oracle;
    if !oracle.is_death() || best.0.len() > ACQUITTAL_LEN {
        return;
    }
    let mut i = 0;
    while i < best.0.len() && best.0.len() > 1 && *runs < budget.runs {
        let mut candidate = best.0.clone();
        candidate.remove(i);
        match still_dies(&candidate, oracle, runs, fails) {
            Some(v) => *best = (candidate, v),
            None => i += 1,
        }
    }
}

/// The same kind of death (`oracle`) the session `candidate` still ends in, if it is a
/// session at all (a run counted then).
fn still_dies(
    candidate: &[Cmd],
    oracle: Oracle,
    runs: &mut usize,
    fails: &mut impl FnMut(&[Cmd]) -> Option<Violation>,
) -> Option<Violation> {
    if candidate.is_empty() || !super::plan::well_formed(candidate) {
        return None;
    }
    *runs += 1;
    fails(candidate).filter(|v| v.oracle == oracle)
}

/// While the session cut before the command a death is charged to still ends in the same kind
/// of death, charges it (and its rule) to the earlier command.
fn move_death_to_its_cause(
    best: &mut (Vec<Cmd>, Violation),
    budget: Budget,
    runs: &mut usize,
    fails: &mut impl FnMut(&[Cmd]) -> Option<Violation>,
) {
    let oracle = best.1.oracle;
    if !oracle.is_death() {
        return;
    }
    while let Some(step) = best.1.step
        && *runs < budget.runs
    {
        // A death seen after the last command (at the closing `isready`) is charged to it.
        let charged = step.min(best.0.len().saturating_sub(1));
        let earlier = &best.0[..charged];
        match still_dies(earlier, oracle, runs, fails) {
            Some(v) => *best = (earlier.to_vec(), v),
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzer::plan::Kind;
    use crate::rules::RuleId;

    fn cmd(text: &str) -> Cmd {
        Cmd {
            raw: false,
            ..Cmd::line(text, Kind::Other)
        }
    }

    fn violation(step: usize) -> Violation {
        Violation::graded(
            Oracle::Exit,
            crate::rule!("USI-ROBUST-010"),
            String::new(),
            Some(step),
        )
    }

    #[test]
    fn keeps_only_the_commands_the_failure_needs() {
        // Fails when both `a` and `b` are present, in order, wherever they are.
        let cmds: Vec<Cmd> = ["x", "a", "y", "z", "b", "w", "v"].map(cmd).to_vec();
        let fails = |c: &[Cmd]| {
            let a = c.iter().position(|c| c.text == "a")?;
            let b = c.iter().position(|c| c.text == "b")?;
            (a < b).then(|| violation(b))
        };
        let (min, v) = shrink(&cmds, violation(4), Budget { runs: 100 }, fails);
        let texts: Vec<&str> = min.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["a", "b"]);
        assert_eq!(v.step, Some(1));
    }

    #[test]
    fn a_different_failure_does_not_count() {
        let cmds: Vec<Cmd> = ["a", "b"].map(cmd).to_vec();
        let protocol = |step, rule| Violation::graded(Oracle::Protocol, rule, String::new(), step);
        let other = |_: &[Cmd]| Some(protocol(Some(0), crate::rule!("USI-GO-002")));
        let (min, _) = shrink(
            &cmds,
            protocol(Some(1), crate::rule!("USI-ROBUST-010")),
            Budget { runs: 10 },
            other,
        );
        assert_eq!(min.len(), 2);
    }

    #[test]
    fn a_failure_no_shorter_list_repeats_keeps_the_session_up_to_where_it_showed() {
        // `bestmove` during `go infinite` before `stop`, a race each re-run loses: the
        // commands after it are not needed, and would reach other deviations in a replay.
        let cmds: Vec<Cmd> = ["position", "go infinite", "stop", "position", "go mate"]
            .map(cmd)
            .to_vec();
        let early = Violation::graded(
            Oracle::Protocol,
            crate::rule!("USI-GO-008"),
            String::new(),
            Some(1),
        );
        let (min, v) = shrink(&cmds, early, Budget { runs: 10 }, |_| None);
        let texts: Vec<&str> = min.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["position", "go infinite"]);
        assert_eq!(v.step, Some(1));
    }

    const PONDER_SESSION: [&str; 4] = ["position", "go ponder", "ponderhit", "stop"];

    fn crash(step: usize, rule: RuleId) -> Violation {
        Violation::graded(Oracle::Crash, rule, String::new(), Some(step))
    }

    /// An engine that dies on reading `go ponder`: the death shows at whatever is sent next.
    fn dies_on_go_ponder(c: &[Cmd]) -> Option<Violation> {
        let go = c.iter().position(|c| c.text == "go ponder")?;
        Some(match c.get(go + 1) {
            Some(next) if next.text == "ponderhit" => crash(go + 1, crate::rule!("USI-STOP-005")),
            Some(_) => crash(go + 1, crate::rule!("USI-STOP-002")),
            None => crash(c.len(), crate::rule!("USI-GO-002")),
        })
    }

    #[test]
    fn a_death_moves_to_the_command_that_caused_it() {
        let cmds: Vec<Cmd> = PONDER_SESSION.map(cmd).to_vec();
        let first = crash(2, crate::rule!("USI-STOP-005"));
        let (min, v) = shrink(&cmds, first, Budget { runs: 100 }, dies_on_go_ponder);
        let texts: Vec<&str> = min.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["go ponder"]);
        assert_eq!(v.rule, crate::rule!("USI-GO-002"));
    }

    #[test]
    fn a_death_still_moves_when_the_first_rerun_was_disturbed() {
        // The first re-run, on a loaded machine, saw the engine's death as a hang.
        let cmds: Vec<Cmd> = PONDER_SESSION.map(cmd).to_vec();
        let mut disturbed = true;
        let fails = |c: &[Cmd]| {
            if std::mem::take(&mut disturbed) {
                let hang = Violation::graded(
                    Oracle::Hang,
                    crate::rule!("USI-ROBUST-001"),
                    String::new(),
                    None,
                );
                return Some(hang);
            }
            dies_on_go_ponder(c)
        };
        let first = crash(2, crate::rule!("USI-STOP-005"));
        let (min, v) = shrink(&cmds, first, Budget { runs: 100 }, fails);
        let texts: Vec<&str> = min.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["go ponder"]);
        assert_eq!(v.rule, crate::rule!("USI-GO-002"));
    }

    /// An engine that aborts on `go`, after a tab line charged first (the prime suspect of a
    /// death since the last sign of life): the tab is tried away, the death still comes, and
    /// it is the `go`'s.
    #[test]
    fn a_command_the_death_comes_without_is_acquitted() {
        let cmds: Vec<Cmd> = ["\t", "position", "go movetime 1"].map(cmd).to_vec();
        let dies_on_go = |c: &[Cmd]| {
            let go = c.iter().position(|c| c.text.starts_with("go"))?;
            let rule = if c[..go].iter().any(|c| c.text == "\t") {
                crate::rule!("USI-ROBUST-001")
            } else {
                crate::rule!("USI-GO-002")
            };
            Some(crash(go, rule))
        };
        let first = crash(2, crate::rule!("USI-ROBUST-001"));
        let (min, v) = shrink(&cmds, first, Budget { runs: 30 }, dies_on_go);
        let texts: Vec<&str> = min.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["go movetime 1"]);
        assert_eq!(v.rule, crate::rule!("USI-GO-002"));
    }

    #[test]
    fn a_failure_in_the_handshake_keeps_no_command_and_runs_nothing() {
        let cmds: Vec<Cmd> = ["position", "go depth 1"].map(cmd).to_vec();
        let hang = Violation::graded(
            Oracle::Hang,
            crate::rule!("USI-HANDSHAKE-004"),
            String::new(),
            None,
        );
        let (min, v) = shrink(&cmds, hang, Budget { runs: 100 }, |_| {
            panic!("no candidate needs a run")
        });
        assert!(min.is_empty());
        assert_eq!(
            (v.oracle, v.rule),
            (Oracle::Hang, crate::rule!("USI-HANDSHAKE-004"))
        );
    }
}
