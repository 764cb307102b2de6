//! The embedded catalogue: all rules of RULES.md, generated once into `catalogue.tsv`.
//!
//! The TSV is checked in so the binary does not depend on the spec files; the drift test
//! below regenerates it from `../shared/spec/RULES.md` and fails on any difference
//! (`USICHECK_BLESS=1 cargo test rules::catalogue` rewrites it).

use super::{Direction, Rule, RuleId, Section, Strength};
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// The TSV columns, in order.
pub(crate) const COLUMNS: [&str; 8] = [
    "id",
    "title",
    "strength",
    "direction",
    "sources",
    "statement",
    "check",
    "timeout",
];

pub(super) const CATALOGUE_TSV: &str = include_str!("catalogue.tsv");

/// All rules, in RULES.md order, with lookup by ID.
#[derive(Debug)]
pub struct Catalogue {
    rules: Vec<Rule>,
    by_id: HashMap<String, usize>,
}

static CATALOGUE: LazyLock<Catalogue> = LazyLock::new(|| {
    // The embedded file is verified by the tests below, so a failure here is a build defect.
    Catalogue::from_tsv(CATALOGUE_TSV).expect("embedded catalogue.tsv is valid")
});

/// The embedded catalogue.
///
/// ```
/// use usicheck::rules::{catalogue, Section};
/// assert_eq!(catalogue().rules().len(), 148);
/// assert_eq!(catalogue().in_section(Section::Ext).count(), 20);
/// ```
pub fn catalogue() -> &'static Catalogue {
    &CATALOGUE
}

impl Catalogue {
    /// All rules in RULES.md order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rule with this exact ID.
    pub fn lookup(&self, id: &str) -> Option<&Rule> {
        self.by_id.get(id).map(|&i| &self.rules[i])
    }

    /// The rules of one section, in order.
    pub fn in_section(&self, section: Section) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(move |r| r.section == section)
    }

    fn from_tsv(text: &str) -> Result<Catalogue, String> {
        let tag = Regex::new(r"\[([A-Z][A-Z0-9]+)[\] ]").map_err(|e| e.to_string())?;
        let ambiguity = Regex::new(r"\bA-\d\d\b").map_err(|e| e.to_string())?;
        let mut lines = text.lines();
        if lines.next() != Some(COLUMNS.join("\t").as_str()) {
            return Err("catalogue.tsv: unexpected header".into());
        }
        let mut rules = Vec::new();
        let mut by_id = HashMap::new();
        for (n, line) in lines.enumerate() {
            let err = |what: &str| format!("catalogue.tsv:{}: {what}", n + 2);
            let cells: Vec<&str> = line.split('\t').collect();
            let [
                id,
                title,
                strength,
                direction,
                sources,
                statement,
                check,
                timeout,
            ] = cells[..]
            else {
                return Err(err("wrong number of columns"));
            };
            let section = id
                .strip_prefix("USI-")
                .and_then(|rest| rest.rsplit_once('-'))
                .and_then(|(prefix, _)| Section::from_id_prefix(prefix))
                .ok_or_else(|| err("bad rule ID"))?;
            let index = u16::try_from(rules.len()).map_err(|_| err("too many rules"))?;
            let mut source_tags: Vec<String> = Vec::new();
            for cap in tag.captures_iter(sources) {
                if !source_tags.iter().any(|t| t == &cap[1]) {
                    source_tags.push(cap[1].to_owned());
                }
            }
            let mut ambiguities: Vec<String> = [sources, statement, check]
                .iter()
                .flat_map(|text| ambiguity.find_iter(text).map(|m| m.as_str().to_owned()))
                .collect();
            ambiguities.sort();
            ambiguities.dedup();
            by_id.insert(id.to_owned(), rules.len());
            rules.push(Rule {
                rule_id: RuleId(index),
                id: id.to_owned(),
                section,
                title: title.to_owned(),
                strength: Strength::parse(strength).ok_or_else(|| err("bad strength"))?,
                direction_text: direction.to_owned(),
                direction: Direction::parse(direction).ok_or_else(|| err("bad direction"))?,
                sources: sources.to_owned(),
                source_tags,
                statement: statement.to_owned(),
                check: check.to_owned(),
                timeout: (!timeout.is_empty()).then(|| timeout.to_owned()),
                ambiguities,
            });
        }
        Ok(Catalogue { rules, by_id })
    }
}

/// Extracts the catalogue rows from RULES.md text (test-time generator of `catalogue.tsv`).
#[cfg(test)]
pub(crate) fn rows_from_rules_md(text: &str) -> Vec<[String; 8]> {
    let header = Regex::new(r"^\*\*(USI-[A-Z]+-\d{3}) — (.*?)\.\*\*(.*)$").unwrap();
    let check_at = Regex::new(r" Check(:| \()").unwrap();
    let mut rows = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(cap) = header.captures(line) else {
            continue;
        };
        let mut row: [String; 8] = Default::default();
        row[0] = cap[1].to_owned();
        row[1] = cap[2].to_owned();
        let rest = cap[3].trim();
        if !rest.is_empty() {
            // §15 one-paragraph form: `STRENGTH · DIRECTION · SOURCES. Check: CHECK`
            let mut parts = rest.splitn(3, " · ");
            row[2] = parts.next().unwrap_or_default().to_owned();
            row[3] = parts.next().unwrap_or_default().to_owned();
            let tail = parts.next().unwrap_or_default();
            let (sources, check) = match check_at.find(tail) {
                Some(m) => (&tail[..m.start()], check_text(&tail[m.start() + 6..])),
                None => (tail, String::new()),
            };
            row[4] = sources.to_owned();
            row[5] = row[1].clone();
            row[6] = check;
        }
        while let Some(next) = lines.peek().filter(|l| !l.trim().is_empty()) {
            let next = next.trim();
            if let Some(statement) = next.strip_prefix("Rule: ") {
                row[5] = statement.to_owned();
            } else if let Some(sd) = next.strip_prefix("Strength: ") {
                let (strength, direction) = sd.split_once(" · Direction: ").unwrap_or((sd, ""));
                row[2] = strength.to_owned();
                row[3] = direction.to_owned();
            } else if let Some(sources) = next.strip_prefix("Source: ") {
                row[4] = sources.to_owned();
            } else if let Some(check) = next.strip_prefix("Check") {
                row[6] = check_text(check);
            } else if let Some(timeout) = next.strip_prefix("Timeout: ") {
                row[7] = timeout.to_owned();
            }
            lines.next();
        }
        rows.push(row);
    }
    rows
}

/// The text after the word `Check`: `: X` becomes `X`, `(qualifier): X` becomes `(qualifier) X`.
#[cfg(test)]
fn check_text(after_word: &str) -> String {
    match after_word.strip_prefix(": ") {
        Some(plain) => plain.to_owned(),
        None => after_word.trim_start().replacen("):", ")", 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn spec_file(name: &str) -> Option<String> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/spec")
            .join(name);
        match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(_) => {
                eprintln!("skipped: {} not found", path.display());
                None
            }
        }
    }

    #[test]
    fn embedded_catalogue_has_all_148_rules_in_16_sections() {
        let cat = catalogue();
        assert_eq!(cat.rules().len(), 148);
        let per_section: Vec<usize> = Section::ALL
            .iter()
            .map(|&s| cat.in_section(s).count())
            .collect();
        assert_eq!(
            per_section,
            [8, 14, 8, 11, 12, 8, 6, 7, 13, 10, 6, 4, 11, 4, 20, 6]
        );
        for rule in cat.rules() {
            assert!(!rule.statement.is_empty(), "{}", rule.id);
            assert!(!rule.sources.is_empty(), "{}", rule.id);
            assert!(!rule.check.is_empty(), "{}", rule.id);
            assert_eq!(rule.rule_id.as_str(), rule.id);
        }
    }

    #[test]
    fn strength_display_round_trips_every_rule() {
        let tsv_strengths = CATALOGUE_TSV
            .lines()
            .skip(1)
            .map(|l| l.split('\t').nth(2).unwrap());
        for (rule, text) in catalogue().rules().iter().zip(tsv_strengths) {
            assert_eq!(rule.strength.to_string(), text, "{}", rule.id);
        }
    }

    #[test]
    fn catalogue_tsv_matches_rules_md() {
        let Some(md) = spec_file("RULES.md") else {
            return;
        };
        let mut generated = COLUMNS.join("\t");
        generated.push('\n');
        for row in rows_from_rules_md(&md) {
            generated.push_str(&row.join("\t"));
            generated.push('\n');
        }
        if std::env::var_os("USICHECK_BLESS").is_some() {
            let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/rules/catalogue.tsv");
            std::fs::write(path, &generated).unwrap();
            return;
        }
        assert!(
            generated == CATALOGUE_TSV,
            "src/rules/catalogue.tsv is out of date with RULES.md; \
             rerun with USICHECK_BLESS=1 and review the diff"
        );
    }

    #[test]
    fn catalogue_matches_rules_index() {
        let Some(index) = spec_file("rules_index.tsv") else {
            return;
        };
        let rows: Vec<Vec<&str>> = index
            .lines()
            .skip(1)
            .map(|l| l.split('\t').collect())
            .collect();
        assert_eq!(rows.len(), catalogue().rules().len());
        for (row, rule) in rows.iter().zip(catalogue().rules()) {
            assert_eq!(row[0], rule.id);
            assert_eq!(row[1], rule.strength.to_string(), "{}", rule.id);
            assert_eq!(row[2], rule.direction_text, "{}", rule.id);
            assert_eq!(row[3], rule.title, "{}", rule.id);
        }
    }
}
