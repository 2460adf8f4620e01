//! The unknowns of the shared affine fit (`mod.rs`): the frame at each
//! timestep, and each group's rows and coefficients.

use crate::fit::basis::GroupBasis;

/// A frame: `x = A·y + c`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::fit) struct Frame {
    pub(super) a: [[f64; 3]; 3],
    pub(super) c: [f64; 3],
}

impl Frame {
    /// `self + beta·(self − from)`.
    pub(super) fn beyond(&self, from: &Frame, beta: f64) -> Frame {
        Frame {
            a: std::array::from_fn(|i| {
                std::array::from_fn(|j| self.a[i][j] + beta * (self.a[i][j] - from.a[i][j]))
            }),
            c: std::array::from_fn(|i| self.c[i] + beta * (self.c[i] - from.c[i])),
        }
    }

    /// `AᵀA`.
    pub(super) fn gram(&self) -> [[f64; 3]; 3] {
        let a = &self.a;
        std::array::from_fn(|j| std::array::from_fn(|k| (0..3).map(|i| a[i][j] * a[i][k]).sum()))
    }

    pub(super) fn apply(&self, y: [f64; 3]) -> [f64; 3] {
        let (a, c) = (&self.a, &self.c);
        std::array::from_fn(|i| a[i][0] * y[0] + a[i][1] * y[1] + a[i][2] * y[2] + c[i])
    }

    /// The row-major 3×4 matrix `[A | c]` a MEMG file stores.
    pub(in crate::fit) fn matrix(&self) -> [f64; 12] {
        let (a, c) = (&self.a, &self.c);
        [
            a[0][0], a[0][1], a[0][2], c[0], a[1][0], a[1][1], a[1][2], c[1], a[2][0], a[2][1],
            a[2][2], c[2],
        ]
    }
}

/// One group's factors in `f64`: per vertex its rows `[p | U]`, 3 × (r + 1)
/// (`rows[(k·3 + a)·(r + 1) + j]`, column 0 the mean), and per timestep its
/// coefficients (`coeffs[t·r + j]`).
#[derive(Debug, Clone)]
pub(super) struct Factors {
    pub(super) rank: usize,
    pub(super) rows: Vec<f64>,
    pub(super) coeffs: Vec<f64>,
}

impl Factors {
    /// `self + beta·(self − from)`, of the same rank.
    pub(super) fn beyond(&self, from: &Factors, beta: f64) -> Factors {
        let far = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(x, y)| x + beta * (x - y)).collect();
        Factors {
            rank: self.rank,
            rows: far(&self.rows, &from.rows),
            coeffs: far(&self.coeffs, &from.coeffs),
        }
    }

    /// Vertex `k`'s local position at timestep `t`.
    pub(super) fn local(&self, k: usize, t: usize) -> [f64; 3] {
        let m = self.rank + 1;
        let q = &self.coeffs[t * self.rank..(t + 1) * self.rank];
        std::array::from_fn(|a| {
            let row = &self.rows[(k * 3 + a) * m..(k * 3 + a + 1) * m];
            row[0] + q.iter().zip(&row[1..]).map(|(q, u)| q * u).sum::<f64>()
        })
    }

    /// The arrays a MEMG group holds.
    pub(super) fn basis(&self) -> GroupBasis {
        let (r, m) = (self.rank, self.rank + 1);
        let rows = self.rows.len() / m;
        let mut basis = vec![0f32; rows * r];
        for i in 0..rows {
            for j in 0..r {
                basis[j * rows + i] = self.rows[i * m + 1 + j] as f32;
            }
        }
        GroupBasis {
            mean: (0..rows).map(|i| self.rows[i * m] as f32).collect(),
            basis,
            coeffs: self.coeffs.iter().map(|&x| x as f32).collect(),
            rank: r,
            max_error: 0.0,
        }
    }
}
