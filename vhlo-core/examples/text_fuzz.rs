//! Mutation fuzzing of the text parser and printer:
//! `FUZZ_SEED=7 cargo run --example text_fuzz -- N FILE...`.
//! Every mutated input must either fail to parse with an error or print and re-parse to the same
//! IR; a panic is a bug.

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    // Units to mutate: the functions of each file (a whole file rarely survives mutation).
    let mut corpora: Vec<Vec<u8>> = Vec::new();
    for f in args {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let starts: Vec<usize> = text.match_indices("func.func").map(|(i, _)| i).collect();
        for (k, &a) in starts.iter().enumerate() {
            let b = starts.get(k + 1).copied().unwrap_or(text.len());
            corpora.push(text.as_bytes()[a..b].to_vec());
        }
    }
    if corpora.is_empty() {
        eprintln!("usage: text_fuzz N FILE...");
        return;
    }
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D);
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let alphabet: &[u8] = b"()[]{}<>:,=%#!^@\"x?-0123456789.abcdefinrstuxyz_ \n";
    let (mut parsed, mut rejected) = (0, 0);
    for round in 0..n {
        let mut v = corpora[(next() as usize) % corpora.len()].clone();
        let _ = round;
        if v.is_empty() {
            continue;
        }
        for _ in 0..1 + next() % 6 {
            let i = (next() as usize) % v.len().max(1);
            match next() % 4 {
                0 => {
                    let at = i.min(v.len() - 1);
                    v[at] = alphabet[(next() as usize) % alphabet.len()];
                }
                1 => {
                    if v.len() > 1 {
                        let at = i.min(v.len() - 1);
                        v.remove(at);
                    }
                }
                2 => v.insert(i, alphabet[(next() as usize) % alphabet.len()]),
                _ => {
                    // Duplicate a chunk (nesting, repeated attributes).
                    let j = (i + (next() as usize) % 40).min(v.len());
                    let chunk = v[i..j].to_vec();
                    for (k, b) in chunk.into_iter().enumerate() {
                        v.insert(j + k, b);
                    }
                }
            }
        }
        let Ok(s) = String::from_utf8(v) else {
            continue;
        };
        match vhlo_core::text::parse(&s) {
            Ok(m) => {
                parsed += 1;
                for (generic, location_aliases) in [(true, false), (false, false), (false, true)] {
                    let opts = vhlo_core::text::PrintOptions {
                        generic,
                        debug_info: true,
                        location_aliases,
                        ..Default::default()
                    };
                    let p = vhlo_core::text::print(&m, opts);
                    let m2 = vhlo_core::text::parse(&p).unwrap_or_else(|e| {
                        panic!("re-parse failed: {e}\n--- input\n{s}\n--- printed\n{p}")
                    });
                    if let Err(e) = vhlo_core::ir::structurally_equal(&m, &m2, Default::default()) {
                        panic!("round trip differs: {e}\n--- input\n{s}\n--- printed\n{p}");
                    }
                }
            }
            Err(_) => rejected += 1,
        }
    }
    println!("{n} rounds: {parsed} parsed and round-tripped, {rejected} rejected");
}
