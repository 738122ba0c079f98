//! Sliding-window sums, the Rust twin of more_itertools.windowed.

/// Sum of every full window of `width` items.
pub fn window_sums(values: &[i64], width: usize) -> Vec<i64> {
    if width == 0 {
        return Vec::new();
    }
    values.windows(width).map(|w| w.iter().sum()).collect()
}

/// The largest window sum, if there is a full window.
pub fn max_window(values: &[i64], width: usize) -> Option<i64> {
    let sums = window_sums(values, width);
    let best: i64 = sums.iter().max();
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums() {
        assert_eq!(window_sums(&[3, 1, 4, 1, 5], 3), vec![8, 6, 10]);
    }
}
