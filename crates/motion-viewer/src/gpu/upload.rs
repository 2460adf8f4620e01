//! Filling large GPU buffers with bounded staging memory, and naming the
//! sizes when the adapter cannot allocate them.
//!
//! `create_buffer_init` stages the whole contents at once, and every staging
//! copy lives until the next submission finishes: uploading a scene of
//! gigabytes that way holds it twice. [`Upload`] writes piece by piece through
//! the queue and waits for the copies every [`FLUSH_BYTES`], so staging never
//! holds more than that, and it gathers every buffer it creates under an
//! out-of-memory error scope so that a failed allocation is reported with
//! what was asked for.

use super::context::GpuContext;
use crate::error::{Error, Result};

/// Staged bytes after which the copies are submitted and waited for.
const FLUSH_BYTES: u64 = 64 << 20;

/// The buffers of one GPU object (a mesh, a deformer) being created and filled.
pub(crate) struct Upload<'a> {
    ctx: &'a GpuContext,
    what: &'static str,
    /// Catches allocation failures. None in a browser: a scope's result
    /// comes back asynchronously there, so a failure is reported through the
    /// context's error slot ([`GpuContext::check`]) instead.
    scope: Option<wgpu::ErrorScopeGuard>,
    /// Bytes allocated, per kind of buffer (label), for the error message.
    sizes: Vec<(&'static str, u64)>,
    staged: u64,
}

impl<'a> Upload<'a> {
    /// Starts creating `what` (named in errors).
    pub fn new(ctx: &'a GpuContext, what: &'static str) -> Upload<'a> {
        Upload {
            ctx,
            what,
            scope: cfg!(not(target_arch = "wasm32"))
                .then(|| ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory)),
            sizes: Vec::new(),
            staged: 0,
        }
    }

    /// A new buffer of at least `size` bytes (rounded up to 4, never empty)
    /// with `COPY_DST` added to `usage`, counted under `label`.
    pub fn buffer(
        &mut self,
        label: &'static str,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let size = size.max(4).next_multiple_of(4);
        match self.sizes.iter_mut().find(|(l, _)| *l == label) {
            Some((_, total)) => *total += size,
            None => self.sizes.push((label, size)),
        }
        self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// A buffer holding `contents` (see [`Upload::buffer`]).
    pub(crate) fn buffer_with(
        &mut self,
        label: &'static str,
        contents: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let buffer = self.buffer(label, contents.len() as u64, usage);
        self.write(&buffer, 0, contents);
        buffer
    }

    /// Copies `bytes` (a multiple of 4 long) into `buffer` at `offset`, in
    /// pieces; waits for the copies whenever [`FLUSH_BYTES`] are staged.
    pub fn write(&mut self, buffer: &wgpu::Buffer, offset: u64, bytes: &[u8]) {
        for (i, piece) in bytes.chunks(FLUSH_BYTES as usize).enumerate() {
            let at = offset + (i as u64) * FLUSH_BYTES;
            self.ctx.queue.write_buffer(buffer, at, piece);
            self.staged += piece.len() as u64;
            if self.staged >= FLUSH_BYTES {
                self.flush();
            }
        }
    }

    /// Submits the staged copies and waits for them, freeing their staging memory.
    fn flush(&mut self) {
        self.ctx.queue.submit([]);
        // A failure here surfaces from `finish` through the context's error
        // slot. (In a browser `wait` cannot block; the browser keeps the
        // staging memory until the copies are done.)
        let _ = self.ctx.wait();
        self.staged = 0;
    }

    /// Finishes the copies; an allocation the adapter refused comes back as an
    /// error naming every buffer's size and the total.
    pub fn finish(mut self) -> Result<()> {
        self.flush();
        if let Some(scope) = self.scope.take()
            && let Some(e) = pollster::block_on(scope.pop())
        {
            let total: u64 = self.sizes.iter().map(|(_, s)| s).sum();
            let parts: Vec<String> = self
                .sizes
                .iter()
                .map(|(label, size)| format!("{label} {}", megabytes(*size)))
                .collect();
            return Err(Error::gpu_device(
                format!(
                    "{} needs {} of GPU memory ({}); adapter '{}' could not allocate it: {e}",
                    self.what,
                    megabytes(total),
                    parts.join(", "),
                    self.ctx.adapter_name()
                ),
                None,
            ));
        }
        self.ctx.wait()
    }
}

/// `bytes` as MB with its exact byte count, e.g. `1920.0 MB (1920000000 bytes)`.
pub(crate) fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB ({bytes} bytes)", bytes as f64 / 1e6)
}
