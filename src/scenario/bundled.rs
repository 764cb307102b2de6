//! The scenarios shipped inside the binary, and the coverage they provide.

use super::load_str;
use crate::rules::Coverage;

/// Bundled scenarios as (name, YAML), the name being the path under `scenarios/` without
/// `.yaml`. A test keeps this list equal to the files on disk.
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "01-handshake/info-only-probe",
        include_str!("../../scenarios/01-handshake/info-only-probe.yaml"),
    ),
    (
        "03-ready/isready-during-go-infinite",
        include_str!("../../scenarios/03-ready/isready-during-go-infinite.yaml"),
    ),
    (
        "06-ponder/ponder-hit",
        include_str!("../../scenarios/06-ponder/ponder-hit.yaml"),
    ),
    (
        "10-mate/mate-in-one",
        include_str!("../../scenarios/10-mate/mate-in-one.yaml"),
    ),
    (
        "12-quit/quit-during-search",
        include_str!("../../scenarios/12-quit/quit-during-search.yaml"),
    ),
    (
        "12-quit/stdin-eof",
        include_str!("../../scenarios/12-quit/stdin-eof.yaml"),
    ),
];

/// Coverage from the bundled scenarios' `rules:` lists (a scenario that fails to load, which
/// the tests rule out, contributes nothing).
///
/// ```
/// use usicheck::rules::Status;
/// let coverage = usicheck::scenario::bundled_coverage();
/// let quit = "USI-QUIT-003".parse().unwrap();
/// assert_eq!(coverage.status(quit), Status::Unproven);
/// ```
pub fn bundled_coverage() -> Coverage {
    let mut coverage = Coverage::default();
    for (name, yaml) in BUNDLED {
        if let Ok(scenario) = load_str(name, yaml) {
            coverage.add_scenario(name, &scenario.rules);
        }
    }
    coverage
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn yaml_files(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                yaml_files(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                let rel = path.strip_prefix(root).unwrap().with_extension("");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    #[test]
    fn bundled_list_matches_scenario_files() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut on_disk = Vec::new();
        yaml_files(&root, &root, &mut on_disk);
        on_disk.sort();
        let listed: Vec<String> = BUNDLED.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(listed, on_disk);
    }

    /// Coverage comes from `rules:`, so a rule a step can fail must be listed there.
    #[test]
    fn bundled_scenarios_list_every_rule_their_steps_blame() {
        for (name, yaml) in BUNDLED {
            let scenario = load_str(name, yaml).unwrap();
            for id in scenario.step_rules() {
                assert!(
                    scenario.rules.contains(&id),
                    "{name}: {id} is blamed but not in `rules:`"
                );
            }
        }
    }

    #[test]
    fn every_bundled_scenario_loads() {
        for (name, yaml) in BUNDLED {
            if let Err(err) = load_str(name, yaml) {
                panic!("{err}");
            }
        }
    }
}
