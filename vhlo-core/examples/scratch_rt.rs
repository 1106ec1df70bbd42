use vhlo_core::bytecode::{self, WriteOptions};
fn opts(info: &bytecode::ArtifactInfo) -> WriteOptions<'_> {
    WriteOptions {
        bytecode_version: info.bytecode_version,
        producer: &info.producer,
        use_list_orders: Some(&info.use_list_orders),
        block_arg_locations: Some(&info.block_arg_locations),
    }
}
fn main() {
    let data = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    let (m, info) = bytecode::read(&data).unwrap();
    println!(
        "version {} uselists {:?} bal {:?}",
        info.bytecode_version, info.use_list_orders, info.block_arg_locations
    );
    let first = bytecode::write(&m, &opts(&info)).unwrap();
    let (m2, info2) = bytecode::read(&first).unwrap();
    println!(
        "2: uselists {:?} bal {:?}",
        info2.use_list_orders, info2.block_arg_locations
    );
    let second = bytecode::write(&m2, &opts(&info2)).unwrap();
    println!(
        "in {} first {} second {}",
        data.len(),
        first.len(),
        second.len()
    );
    let d = first.iter().zip(&second).position(|(a, b)| a != b);
    println!("first diff at {:?}", d);
    if let Some(d) = d {
        println!(
            "{:02x?}\n{:02x?}",
            &first[d.saturating_sub(8)..(d + 24).min(first.len())],
            &second[d.saturating_sub(8)..(d + 24).min(second.len())]
        );
    }
    let d0 = data.iter().zip(&first).position(|(a, b)| a != b);
    println!("input vs first diff at {:?}", d0);
}
