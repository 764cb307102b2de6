//! "Did you mean": the known name closest to a mistyped one, for one-line input errors.

/// The candidate most like `given` (case-insensitive), if one is close enough to be a typo:
/// at most a third of its characters edited (as cargo's suggestions), at least one.
///
/// ```
/// use usicheck::suggest::nearest;
/// let names = ["01-handshake/fast-usiok", "03-ready/isready-twice"];
/// assert_eq!(nearest("01-handshake/fast-usok", names), Some("01-handshake/fast-usiok"));
/// assert_eq!(nearest("usi-ready-06", ["USI-READY-006", "USI-GO-006"]), Some("USI-READY-006"));
/// assert_eq!(nearest("ponder", names), None);
/// ```
pub fn nearest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let given = given.to_ascii_lowercase();
    let allowed = (given.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|candidate| {
            let distance = strsim::damerau_levenshtein(&given, &candidate.to_ascii_lowercase());
            (distance, candidate)
        })
        .filter(|(distance, _)| *distance <= allowed)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// `; did you mean `X`?` for [`nearest`], or nothing.
pub fn hint<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    nearest(given, candidates).map_or_else(String::new, |name| format!("; did you mean `{name}`?"))
}
