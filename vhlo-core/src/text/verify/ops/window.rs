//! The windows of reduce_window, select_and_scatter, convolution and dynamic_conv: upstream's
//! `verifyWindowAttributesAndInferWindowDimensions`, `convertPaddingAttribute` and
//! `inferWindowOutputShape`, with each op's rule ids.

use crate::ir::{AttrData, Dim, DYNAMIC};
use crate::text::verify::types::{dense_ints, ints_str, shaped, OpView};
use crate::text::verify::{ensure, Check, Failure};

/// One window dimension (upstream's `WindowDimension`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Window {
    pub(super) size: Dim,
    pub(super) stride: i64,
    pub(super) padding_low: i64,
    pub(super) padding_high: i64,
    pub(super) base_dilation: i64,
    pub(super) window_dilation: i64,
}

/// An op's window attributes: the names of its two dilation attributes (none for
/// select_and_scatter), whether it has `window_reversal` (convolutions), and the rule id of
/// each check.
pub(super) struct WindowRules {
    pub(super) dilations: Option<(&'static str, &'static str)>,
    pub(super) strides_size: &'static str,
    pub(super) base_size: &'static str,
    pub(super) window_size: &'static str,
    pub(super) padding_size: &'static str,
    pub(super) reversal_size: Option<&'static str>,
    pub(super) positive_size: &'static str,
    pub(super) positive_stride: &'static str,
    pub(super) positive_base: &'static str,
    pub(super) positive_window: &'static str,
}

/// The padding attribute as pairs and its row count, after `convertPaddingAttribute`'s check
/// of its shape (`[N, 2]`). The values are read only when N is the window count (another N
/// fails later), so a huge splat is never expanded.
pub(super) fn padding_attribute(
    v: &OpView,
    window_count: usize,
    rule: &'static str,
) -> Result<(Vec<(i64, i64)>, usize), Failure> {
    let Some(a) = v.attr("padding") else {
        return Ok((Vec::new(), 0));
    };
    let AttrData::DenseElements { ty, .. } = v.m.attr_data(a) else {
        return Ok((Vec::new(), 0));
    };
    let shape = shaped(v.m, *ty).and_then(|s| s.dims).unwrap_or(&[]);
    ensure!(
        shape.len() == 2 && shape.get(1) == Some(&2),
        rule,
        "expects the shape of padding-attribute to be {{N, 2}}, but got {{{}}}.",
        ints_str(shape)
    );
    let rows = usize::try_from(shape.first().copied().unwrap_or(0)).unwrap_or(usize::MAX);
    if rows != window_count {
        return Ok((Vec::new(), rows));
    }
    let values = dense_ints(v.m, a).map(|d| d.1).unwrap_or_default();
    Ok((pairs(&values), rows))
}

pub(super) fn pairs(values: &[i64]) -> Vec<(i64, i64)> {
    values.chunks_exact(2).map(|c| (c[0], c[1])).collect()
}

/// `verifyWindowAttributesAndInferWindowDimensions`: each window attribute is empty or has one
/// entry per window dimension, and sizes, strides and dilations are positive.
pub(super) fn window_dimensions(
    v: &OpView,
    sizes: &[i64],
    padding: &[(i64, i64)],
    padding_len: usize,
    r: &WindowRules,
) -> Result<Vec<Window>, Failure> {
    let n = sizes.len();
    let same = |len: usize, name: &str, rule: &'static str| -> Check {
        ensure!(
            len == 0 || len == n,
            rule,
            "expects {name} to have same dimension-size as size of window dimensions ({n}), but \
             got: {len}."
        );
        Ok(())
    };
    let strides = v.i64s("window_strides").unwrap_or_default();
    let [base, window] = r
        .dilations
        .map(|(b, w)| [b, w].map(|name| v.i64s(name).unwrap_or_default()))
        .unwrap_or_default();
    same(strides.len(), "window-strides", r.strides_size)?;
    same(base.len(), "base-dilation factors", r.base_size)?;
    same(window.len(), "window-dilation factors", r.window_size)?;
    same(padding_len, "padding-entries", r.padding_size)?;
    if let Some(rule) = r.reversal_size {
        let reversal = v.bools("window_reversal").map_or(0, |b| b.len());
        same(reversal, "window-reversal", rule)?;
    }
    let mut out = Vec::with_capacity(n);
    for (i, &size) in sizes.iter().enumerate() {
        ensure!(
            size == DYNAMIC || size > 0,
            r.positive_size,
            "expects window to have positive value for {i}-th window dimension, but got {size}."
        );
        let stride = strides.get(i).copied().unwrap_or(1);
        ensure!(
            stride > 0,
            r.positive_stride,
            "expects window to have positive stride for {i}-th window dimension, but got \
             {stride}."
        );
        let base_dilation = base.get(i).copied().unwrap_or(1);
        ensure!(
            base_dilation > 0,
            r.positive_base,
            "expects window to have positive base dilation factor for {i}-th window dimension, \
             but got {base_dilation}."
        );
        let window_dilation = window.get(i).copied().unwrap_or(1);
        ensure!(
            window_dilation > 0,
            r.positive_window,
            "expects window to have positive window dilation factor for {i}-th window \
             dimension, but got {window_dilation}."
        );
        let (padding_low, padding_high) = padding.get(i).copied().unwrap_or((0, 0));
        out.push(Window {
            size,
            stride,
            padding_low,
            padding_high,
            base_dilation,
            window_dilation,
        });
    }
    Ok(out)
}

/// `inferWindowOutputShape`: per dimension, the number of positions of the dilated window in
/// the padded, dilated base (dynamic where the base or the window is). The arithmetic wraps on
/// overflow, as upstream's 64-bit arithmetic does in jaxlib: it infers `tensor<0xf32>` for a
/// base dilation of 2^62 over three elements.
pub(super) fn window_output_shape(base: &[Dim], window: &[Window]) -> Vec<Dim> {
    // `dilatedBound` and `stridedBound`.
    let dilated = |bound: i64, dilation: i64| match bound {
        0 => 0,
        _ => (bound - 1).wrapping_mul(dilation).wrapping_add(1),
    };
    let strided = |bound: i64, window: i64, stride: i64| {
        if bound == 0 || window > bound {
            0
        } else {
            bound
                .wrapping_sub(window)
                .wrapping_div(stride.max(1))
                .wrapping_add(1)
        }
    };
    base.iter()
        .zip(window)
        .map(|(&b, w)| {
            if b == DYNAMIC || w.size == DYNAMIC {
                return DYNAMIC;
            }
            let padded = w
                .padding_low
                .wrapping_add(dilated(b, w.base_dilation))
                .wrapping_add(w.padding_high);
            strided(padded, dilated(w.size, w.window_dilation), w.stride)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(size: i64, stride: i64, base: i64, window: i64, lo: i64, hi: i64) -> Window {
        Window {
            size,
            stride,
            base_dilation: base,
            window_dilation: window,
            padding_low: lo,
            padding_high: hi,
        }
    }

    #[test]
    fn window_shapes() {
        // The spec's reduce_window example: 3x2 input, window 2x1, strides 4x1, base
        // dilations 2x1, window dilations 3x1, padding [[2, 1], [0, 0]] -> 2x2.
        let w = [win(2, 4, 2, 3, 2, 1), win(1, 1, 1, 1, 0, 0)];
        assert_eq!(window_output_shape(&[3, 2], &w), vec![2, 2]);
        // A window larger than the padded base gives 0; dynamic stays dynamic.
        let w = [win(5, 1, 1, 1, 0, 0), win(2, 1, 1, 1, 0, 0)];
        assert_eq!(window_output_shape(&[4, DYNAMIC], &w), vec![0, DYNAMIC]);
        // A convolution's: 26 with padding 2 on each side and a window of 3 -> 28.
        let w = win(3, 1, 1, 1, 2, 2);
        assert_eq!(
            window_output_shape(&[26, DYNAMIC], &[w, w]),
            vec![28, DYNAMIC]
        );
        // Negative padding can leave nothing.
        assert_eq!(
            window_output_shape(&[3], &[win(1, 1, 1, 1, -4, 0)]),
            vec![0]
        );
    }

    /// jaxlib (StableHLO 1.17.0) infers 0 for a reduce_window over three elements with a base
    /// dilation of 2^62 or of i64::MAX (its arithmetic wraps to a negative padded base), and 1
    /// over five elements with 2^62.
    #[test]
    fn window_shapes_wrap_as_upstream() {
        for dilation in [1 << 62, i64::MAX] {
            let w = [win(1, 1, dilation, 1, 0, 0)];
            assert_eq!(window_output_shape(&[3], &w), vec![0]);
        }
        // Five elements: 4 * 2^62 + 1 wraps to a padded base of 1, and one window fits.
        assert_eq!(
            window_output_shape(&[5], &[win(1, 1, 1 << 62, 1, 0, 0)]),
            vec![1]
        );
    }

    /// Only the dynamic marker is a dynamic window size (`isDynamicDimSize`); jaxlib (StableHLO
    /// 1.17.0) refuses a window of -5 and accepts the dynamic one. With a base dilation of 2^62
    /// over five elements it accepts one result element and refuses none; likewise for a
    /// convolution.
    #[test]
    fn window_checks_from_text() {
        let src = |size: &str, dilation: i64, result: &str| {
            format!(
                "func.func @f(%a: tensor<5xf32>, %i: tensor<f32>) -> tensor<{result}xf32> {{\n  %r = \"stablehlo.reduce_window\"(%a, %i) ({{\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n  }}) {{window_dimensions = array<i64: {size}>, base_dilations = array<i64: {dilation}>}} : (tensor<5xf32>, tensor<f32>) -> tensor<{result}xf32>\n  return %r : tensor<{result}xf32>\n}}\n"
            )
        };
        let parse = |s: String| {
            crate::text::parse(&s)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let e = parse(src("-5", 1, "?")).unwrap_err();
        assert!(
            e.contains(
                "expects window to have positive value for 0-th window dimension, but got -5."
            ),
            "{e}"
        );
        assert_eq!(parse(src("-9223372036854775808", 1, "?")), Ok(()));
        assert_eq!(parse(src("1", 1 << 62, "1")), Ok(()));
        let e = parse(src("1", 1 << 62, "0")).unwrap_err();
        assert!(e.contains("inferred type(s) 'tensor<1xf32>'"), "{e}");
        // A convolution's lhs dilation wraps the same way: jaxlib infers [1, 1, 1].
        let conv = |n: u32| {
            format!("func.func @f(%a: tensor<1x5x1xf32>, %b: tensor<1x1x1xf32>) -> tensor<1x{n}x1xf32> {{\n  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {{lhs_dilate = [4611686018427387904]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x5x1xf32>, tensor<1x1x1xf32>) -> tensor<1x{n}x1xf32>\n  return %r : tensor<1x{n}x1xf32>\n}}\n")
        };
        assert_eq!(parse(conv(1)), Ok(()));
        let e = parse(conv(3)).unwrap_err();
        assert!(
            e.contains("inferred shape '[1, 1, 1]' is incompatible"),
            "{e}"
        );
    }

    /// Each window attribute is empty or one entry per window dimension, and strides are
    /// positive; a dynamic window size and a full `window_reversal` pass. jaxlib (StableHLO
    /// 1.17.0) refuses the first two convolutions and accepts the third.
    #[test]
    fn window_attribute_sizes() {
        let conv = |stride: &str, kernel: &str, result: &str| {
            let src = format!("func.func @f(%a: tensor<1x5x5x1xf32>, %b: tensor<{kernel}x1x1xf32>) -> tensor<1x{result}x1xf32> {{\n  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [{stride}]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x5x5x1xf32>, tensor<{kernel}x1x1xf32>) -> tensor<1x{result}x1xf32>\n  return %r : tensor<1x{result}x1xf32>\n}}\n");
            crate::text::parse(&src)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let e = conv("1", "3x3", "3x3").unwrap_err();
        assert!(e.contains("expects window-strides to have same dimension-size as size of window dimensions (2), but got: 1. (C2)"), "{e}");
        let e = conv("1, 0", "3x3", "3x3").unwrap_err();
        assert!(
            e.contains("positive stride for 1-th window dimension, but got 0. (C3)"),
            "{e}"
        );
        assert_eq!(conv("1, 1], reverse = [false, false", "3x?", "3x?"), Ok(()));
    }
}
