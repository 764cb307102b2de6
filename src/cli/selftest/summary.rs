//! The human counts of a selftest: per rule the fault that proved it, and the sweeps' counts
//! of faults and pairs that agree with the gap table.

use std::collections::BTreeMap;
use usicheck::engine::sanitise;
use usicheck::refengine::faults::Fault;
use usicheck::rules::{RuleId, Status, catalogue};
use usicheck::scenario::bundled_coverage;
use usicheck::selftest::{ExactResult, FaultProof, PairResult, RuleProof};

/// The pair sweep's counts.
pub(super) fn pairs_summary(results: &[PairResult]) -> String {
    let agree = results.iter().filter(|r| r.agrees()).count();
    format!(
        "{} pairs swept: {agree} flag what their faults flag alone (less what one keeps from being checked), {} differ\n",
        results.len(),
        results.len() - agree
    )
}

/// Per rule, each fault that proved it (scenario and what was seen) or why not; then the
/// counts over the rules asked for (all by default).
pub(super) fn proof_summary(proofs: &[FaultProof], only: &[RuleId], faults_given: bool) -> String {
    let mut by_rule: BTreeMap<RuleId, Vec<(Fault, &RuleProof)>> = BTreeMap::new();
    for proof in proofs {
        for (rule, rule_proof) in &proof.rules {
            by_rule
                .entry(*rule)
                .or_default()
                .push((proof.fault, rule_proof));
        }
    }
    let mut text = String::from("\nproofs (rule · fault · scenario · what the check saw)\n");
    for (rule, entries) in &by_rule {
        for (fault, proof) in entries {
            let line = match proof {
                RuleProof::Proven(seen) => {
                    format!("{} in {}: {}", seen.outcome, seen.scenario, seen.reason)
                }
                RuleProof::KnownGap { why } => format!("not flagged (known gap: {why})"),
                RuleProof::GapClosed(seen) => format!(
                    "{} in {} although fault_gaps.tsv says missed",
                    seen.outcome, seen.scenario
                ),
                RuleProof::NotProven { .. } => "NOT FLAGGED by any scenario".to_owned(),
            };
            text.push_str(&format!(
                "  {:<18} {:<28} {}\n",
                rule.as_str(),
                fault.name(),
                sanitise(&line)
            ));
        }
    }
    let coverage = bundled_coverage();
    let asked: Vec<RuleId> = if !only.is_empty() {
        only.to_vec()
    } else if faults_given {
        by_rule.keys().copied().collect()
    } else {
        catalogue().rules().iter().map(|r| r.rule_id).collect()
    };
    let proven = |rule: &RuleId| {
        by_rule
            .get(rule)
            .is_some_and(|e| e.iter().any(|(_, p)| matches!(p, RuleProof::Proven(_))))
    };
    let proven_count = asked.iter().filter(|r| proven(r)).count();
    let checked = asked
        .iter()
        .filter(|r| !proven(r) && coverage.status(**r) != Status::NotImplemented)
        .count();
    let held = proofs.iter().filter(|p| p.holds()).count();
    text.push_str(&format!(
        "\n{} of {} rules proven by a fault here; {checked} checked but not proven (no fault breaks them, or a known gap); {} not checked by any scenario or check\n{held} of {} faults flagged every rule they name (known gaps aside)\n",
        proven_count,
        asked.len(),
        asked.len() - proven_count - checked,
        proofs.len(),
    ));
    text
}

/// The exact sweep's counts.
pub(super) fn exact_summary(results: &[ExactResult]) -> String {
    let exact = results.iter().filter(|r| r.observed.is_none()).count();
    let agree = results.iter().filter(|r| r.agrees()).count();
    let mut text = format!(
        "\n{} faults swept: {exact} fail exactly their named rules, {} as the gap table says, {} differ from it\n",
        results.len(),
        agree - exact.min(agree),
        results.len() - agree
    );
    for result in results.iter().filter(|r| !r.unjudged.is_empty()) {
        let rules: Vec<&str> = result.unjudged.iter().map(|r| r.as_str()).collect();
        text.push_str(&format!(
            "  {}: not judged on {} (the machine's load held usicheck up when a reply was due)\n",
            result.fault.name(),
            rules.join(", ")
        ));
    }
    text
}
