//! The df-pn (depth-first proof-number) search.
//!
//! Proof and disproof numbers are kept from the attacker's point of view at every node: an OR
//! node (attacker to move, children = checks) has `pn = min`, `dn = sum`; an AND node (defender
//! to move, children = legal evasions) has `pn = sum`, `dn = min`. Children's bounds live in a
//! local list while a node is being searched and in the [`Table`] between visits, which also
//! extends solved results to positions that differ only by hand dominance.
//!
//! Repetitions: an attacker who returns to a position already on the current path has made no
//! progress (a mating strategy never needs a cycle, and in play a perpetual check loses), so such
//! a child counts as disproven. That disproof depends on the path, and so does every disproof
//! derived from it, until the search backs up to the repeated position itself. Path-dependent
//! disproofs are kept only in the local lists, never in the table, so a `NoMate` at the root
//! holds whatever the path (the classic graph-history interaction cannot make it wrong).
//! Disproofs caused by the ply limit are likewise never stored and make the root `Unknown`.

use super::table::{Bounds, Table, TableKey};
use super::verify::replay;
use super::{Limits, MateResult, checking_moves};
use crate::shogi::{Color, Hand, Move, PieceKind, Position};
use std::sync::atomic::Ordering;

/// Infinity for proof and disproof numbers.
const INF: u32 = u32::MAX;
/// Sums saturate here, below `INF`, which only solved nodes reach.
const MAX_FINITE: u32 = INF - 1;
/// "Depends on no position of the path."
const NO_DEPENDENCY: usize = usize::MAX;
/// How often (in nodes) the clock and the stop flag are read.
const POLL_INTERVAL: u64 = 256;

/// Bounds of a node as the search sees it along the current path.
#[derive(Copy, Clone, Debug)]
struct NodeValue {
    pn: u32,
    dn: u32,
    /// Plies to mate along the proof, when proven.
    len: u32,
    /// For a disproof: the shallowest path index of a repeated position it relies on.
    dependency: usize,
    /// For a disproof: it relies on the ply limit.
    depth_cut: bool,
}

impl NodeValue {
    fn open(pn: u32, dn: u32) -> NodeValue {
        NodeValue {
            pn,
            dn,
            len: 0,
            dependency: NO_DEPENDENCY,
            depth_cut: false,
        }
    }

    fn proven(len: u32) -> NodeValue {
        NodeValue {
            len,
            ..NodeValue::open(0, INF)
        }
    }

    fn disproven() -> NodeValue {
        NodeValue::open(INF, 0)
    }

    fn is_path_independent(&self) -> bool {
        self.dn != 0 || (self.dependency == NO_DEPENDENCY && !self.depth_cut)
    }

    fn bounds(&self) -> Bounds {
        Bounds {
            pn: self.pn,
            dn: self.dn,
            len: self.len,
        }
    }
}

struct Child {
    mv: Move,
    value: NodeValue,
}

/// A reusable df-pn solver; its table survives between [`Solver::solve`] calls, so solving
/// related positions (as [`super::verify`] does) shares work.
///
/// ```
/// use usicheck::shogi::{Position, mate::{Limits, MateResult, Solver}};
/// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1").unwrap();
/// let mut solver = Solver::new(Limits::new().with_nodes(10_000));
/// assert_eq!(solver.solve(&pos), MateResult::Mate(vec!["G*5b".parse().unwrap()]));
/// assert!(solver.nodes() > 0);
/// ```
pub struct Solver {
    limits: Limits,
    table: Table,
    /// The side to move at the root of the current solve.
    attacker: Color,
    nodes: u64,
    aborted: bool,
    path: Vec<u64>,
}

impl Solver {
    /// A solver with a table of `limits.table_entries` slots.
    pub fn new(limits: Limits) -> Solver {
        let table = Table::new(limits.table_entries);
        Solver {
            limits,
            table,
            attacker: Color::Black,
            nodes: 0,
            aborted: false,
            path: Vec::new(),
        }
    }

    /// The limits in force; `limits_mut` lets a caller change the budget between solves.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn limits_mut(&mut self) -> &mut Limits {
        &mut self.limits
    }

    /// Nodes searched by the last [`Solver::solve`] call.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Solves `pos` for the side to move (the attacker); see [`super::solve`].
    pub fn solve(&mut self, pos: &Position) -> MateResult {
        self.nodes = 0;
        self.aborted = false;
        self.path.clear();
        self.attacker = pos.side_to_move();
        if pos.king_square(!pos.side_to_move()).is_none() {
            return MateResult::NoMate;
        }
        let root = self.search(pos, 0);
        if root.pn == 0 {
            // Replaying the line guards against the unthinkable (a key collision in the table):
            // a `Mate` line always passes the structural checks of `verify`.
            match self.extract_line(pos) {
                Some(line) if replay(pos, &line).is_ok() => MateResult::Mate(line),
                _ => MateResult::Unknown,
            }
        } else if root.dn == 0 && root.is_path_independent() {
            MateResult::NoMate
        } else {
            MateResult::Unknown
        }
    }

    /// Searches `pos` (at `ply` from the root) until it is solved, the budget runs out, or its
    /// bounds saturate (a search too large for 32-bit proof numbers gives up).
    fn search(&mut self, pos: &Position, ply: u32) -> NodeValue {
        loop {
            let v = self.mid(pos, ply, MAX_FINITE, MAX_FINITE);
            if v.pn == 0 || v.dn == 0 || self.aborted || v.pn == MAX_FINITE || v.dn == MAX_FINITE {
                return v;
            }
        }
    }

    fn poll_limits(&mut self) {
        let l = &self.limits;
        l.clock.work(POLL_INTERVAL);
        if l.nodes.is_some_and(|n| self.nodes >= n)
            || l.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
            || l.deadline.is_some_and(|d| l.clock.now() >= d)
        {
            self.aborted = true;
        }
    }

    /// Multiple iterative deepening: expands `pos` until its bounds reach a threshold.
    fn mid(&mut self, pos: &Position, ply: u32, th_pn: u32, th_dn: u32) -> NodeValue {
        self.nodes += 1;
        if self.nodes.is_multiple_of(POLL_INTERVAL)
            || self.limits.nodes.is_some_and(|n| self.nodes >= n)
        {
            self.poll_limits();
        }
        let attacker = ply.is_multiple_of(2);
        if attacker && ply >= self.limits.max_plies {
            return NodeValue {
                depth_cut: true,
                ..NodeValue::disproven()
            };
        }
        let moves: Vec<Move> = if attacker {
            checking_moves(pos)
        } else {
            pos.legal_moves().into_iter().collect()
        };
        if moves.is_empty() {
            let v = if attacker {
                NodeValue::disproven()
            } else {
                NodeValue::proven(0)
            };
            self.table.store(self.table_key(pos), v.bounds());
            return v;
        }
        let index = self.path.len();
        self.path.push(pos.key());
        let mut children: Vec<Child> = moves
            .into_iter()
            .map(|mv| Child {
                mv,
                value: self.initial_value(&pos.after(mv), attacker),
            })
            .collect();
        let result = loop {
            let v = combine(&children, attacker, index);
            if v.pn == 0 || v.dn == 0 || v.pn >= th_pn || v.dn >= th_dn || self.aborted {
                break v;
            }
            let (best, th_child_pn, th_child_dn) = select(&children, attacker, v, th_pn, th_dn);
            let child = pos.after(children[best].mv);
            children[best].value = self.mid(&child, ply + 1, th_child_pn, th_child_dn);
        };
        self.path.pop();
        if result.is_path_independent() {
            self.table.store(self.table_key(pos), result.bounds());
        }
        result
    }

    /// Bounds of a child before it is searched: a repetition, the table, or a cheap estimate
    /// (for a check: the number of evasions, and mate at once when there is none).
    fn initial_value(&mut self, child: &Position, parent_is_attacker: bool) -> NodeValue {
        let key = child.key();
        if let Some(i) = self.path.iter().position(|&k| k == key) {
            return NodeValue {
                dependency: i,
                ..NodeValue::disproven()
            };
        }
        let table_key = self.table_key(child);
        if let Some(b) = self.table.get(table_key) {
            return NodeValue {
                len: b.len,
                ..NodeValue::open(b.pn, b.dn)
            };
        }
        if parent_is_attacker {
            match child.count_legal_moves() {
                0 => {
                    let v = NodeValue::proven(0);
                    self.table.store(table_key, v.bounds());
                    v
                }
                n => NodeValue::open(n.min(MAX_FINITE as u64) as u32, 1),
            }
        } else {
            NodeValue::open(1, 1)
        }
    }

    /// Where `pos` goes in the table. The board key is computed here rather than taken from
    /// [`Position::key`], which mixes the hands in; the attacker's colour is part of it, as
    /// the same position means opposite things when the other side attacks.
    fn table_key(&self, pos: &Position) -> TableKey {
        let mut board = match (pos.side_to_move(), self.attacker) {
            (Color::Black, Color::Black) => 0x1F83_D9AB_FB41_BD6B,
            (Color::White, Color::Black) => 0x5BE0_CD19_137E_2179,
            (Color::Black, Color::White) => 0x6A09_E667_F3BC_C908,
            (Color::White, Color::White) => 0xBB67_AE85_84CA_A73B,
        };
        for sq in pos.occupied() {
            if let Some(p) = pos.piece_at(sq) {
                let code = (sq.index() as u64) << 8
                    | (p.color.index() as u64) << 4
                    | p.kind.index() as u64;
                board ^= mix(code);
            }
        }
        TableKey {
            board,
            attacker_hand: pack_hand(pos.hand(self.attacker)),
            defender_hand: pack_hand(pos.hand(!self.attacker)),
        }
    }

    /// The proof length stored for `pos`, if it is proven in the table.
    fn proven_len(&self, pos: &Position) -> Option<u32> {
        self.table
            .get(self.table_key(pos))
            .filter(|b| b.pn == 0)
            .map(|b| b.len)
    }

    /// Follows the stored proof from the proven root: the attacker plays the proven check with
    /// the shortest stored proof, the defender the evasion with the longest. Stored lengths
    /// strictly decrease along the way unless entries were overwritten; a lost entry is proven
    /// again (within the remaining budget), and a line longer than the ply limit is abandoned.
    fn extract_line(&mut self, root: &Position) -> Option<Vec<Move>> {
        let mut pos = root.clone();
        let mut line = Vec::new();
        loop {
            let ply = line.len() as u32;
            if ply > self.limits.max_plies {
                return None;
            }
            let attacker = ply.is_multiple_of(2);
            let moves: Vec<Move> = if attacker {
                checking_moves(&pos)
            } else {
                pos.legal_moves().into_iter().collect()
            };
            if !attacker && moves.is_empty() {
                return Some(line);
            }
            let mv = match self.pick_proven(&pos, &moves, attacker) {
                Some(mv) => mv,
                None => {
                    self.path.clear();
                    if self.search(&pos, ply).pn != 0 {
                        return None;
                    }
                    self.pick_proven(&pos, &moves, attacker)?
                }
            };
            pos.play_unchecked(mv);
            line.push(mv);
        }
    }

    /// The attacker's proven move with the shortest stored proof, or, for the defender, the
    /// evasion with the longest (`None` if any evasion is not proven in the table).
    fn pick_proven(&self, pos: &Position, moves: &[Move], attacker: bool) -> Option<Move> {
        let lens = moves
            .iter()
            .map(|&mv| self.proven_len(&pos.after(mv)).map(|len| (len, mv)));
        if attacker {
            lens.flatten().min_by_key(|&(len, _)| len).map(|(_, mv)| mv)
        } else {
            lens.collect::<Option<Vec<_>>>()?
                .into_iter()
                .max_by_key(|&(len, _)| len)
                .map(|(_, mv)| mv)
        }
    }
}

/// A 64-bit mixer (splitmix64's finaliser): distinct piece codes get unrelated keys.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One byte per hand kind, in [`PieceKind::HAND_ORDER`].
fn pack_hand(hand: Hand) -> u64 {
    PieceKind::HAND_ORDER
        .iter()
        .enumerate()
        .fold(0, |acc, (i, &k)| acc | (hand.count(k) as u64) << (8 * i))
}

/// The node's bounds from its children's; `index` is the node's own place on the path.
fn combine(children: &[Child], attacker: bool, index: usize) -> NodeValue {
    let (mut pn, mut dn) = if attacker { (INF, 0) } else { (0, INF) };
    for c in children {
        let v = c.value;
        if attacker {
            pn = pn.min(v.pn);
            dn = add(dn, v.dn);
        } else {
            pn = add(pn, v.pn);
            dn = dn.min(v.dn);
        }
    }
    let solved = children.iter().map(|c| c.value);
    if pn == 0 {
        let lens = solved.filter(|v| v.pn == 0).map(|v| v.len);
        let len = if attacker { lens.min() } else { lens.max() };
        return NodeValue::proven(1 + len.unwrap_or(0));
    }
    if dn == 0 {
        // An attacker node is refuted by all its children, a defender node by its best escape:
        // prefer one that holds for any path.
        let disproofs = solved.filter(|v| v.dn == 0);
        let (dependency, depth_cut) = if attacker {
            disproofs.fold((NO_DEPENDENCY, false), |(d, cut), v| {
                (d.min(v.dependency), cut || v.depth_cut)
            })
        } else {
            disproofs
                .map(|v| (v.dependency, v.depth_cut))
                .min_by_key(|&(d, cut)| (cut, std::cmp::Reverse(d)))
                .unwrap_or((NO_DEPENDENCY, false))
        };
        // A repetition of this very node is no dependency on how it was reached.
        let dependency = if dependency >= index {
            NO_DEPENDENCY
        } else {
            dependency
        };
        return NodeValue {
            dependency,
            depth_cut,
            ..NodeValue::disproven()
        };
    }
    NodeValue::open(pn, dn)
}

/// Saturating sum that stays finite: only solved nodes have infinite bounds.
fn add(a: u32, b: u32) -> u32 {
    if a == INF || b == INF {
        INF
    } else {
        a.saturating_add(b).min(MAX_FINITE)
    }
}

/// The most promising child and its thresholds.
fn select(
    children: &[Child],
    attacker: bool,
    node: NodeValue,
    th_pn: u32,
    th_dn: u32,
) -> (usize, u32, u32) {
    // The attacker follows the smallest pn, the defender the smallest dn.
    let key = |c: &Child| if attacker { c.value.pn } else { c.value.dn };
    let mut best = 0;
    let mut second = INF;
    for (i, c) in children.iter().enumerate().skip(1) {
        if key(c) < key(&children[best]) {
            second = key(&children[best]);
            best = i;
        } else {
            second = second.min(key(c));
        }
    }
    let b = children[best].value;
    if attacker {
        let th_child_pn = th_pn.min(second.saturating_add(1));
        let th_child_dn = th_dn
            .saturating_sub(node.dn - b.dn)
            .max(b.dn.saturating_add(1));
        (best, th_child_pn, th_child_dn)
    } else {
        let th_child_dn = th_dn.min(second.saturating_add(1));
        let th_child_pn = th_pn
            .saturating_sub(node.pn - b.pn)
            .max(b.pn.saturating_add(1));
        (best, th_child_pn, th_child_dn)
    }
}
