//! Nothing: the benchmarks are the `[[bench]]` targets beside this file.
