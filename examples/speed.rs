fn main() {
    let pos = usicheck::shogi::Position::startpos();
    let t = std::time::Instant::now();
    let n = usicheck::shogi::perft(&pos, 5);
    let s = t.elapsed().as_secs_f64();
    println!("{n} {:.2}s {:.1} M/s", s, n as f64 / s / 1e6);
}
