//! The one place that picks a GPU adapter and opens a device.
//!
//! Adapter choice honours wgpu's environment variables: `WGPU_BACKEND`
//! (`vulkan`, `gl`, `metal`, `dx12`, comma-separated), `WGPU_ADAPTER_NAME`
//! (a case-insensitive substring of the adapter's name) and `WGPU_POWER_PREF`
//! (`low`/`high`). Validation errors and device loss are recorded instead of
//! panicking, and come back as [`Error::Gpu`] from [`GpuContext::check`] and
//! [`GpuContext::wait`].

use crate::error::{Error, Result};
use std::sync::{Arc, Mutex};

/// An adapter, its device and queue, and the first GPU error seen (if any).
///
/// Cheap to clone: every field is reference-counted, so the deformer and the
/// renderer each keep one.
#[derive(Debug, Clone)]
pub struct GpuContext {
    /// The wgpu instance (the window creates its surface from it).
    pub instance: wgpu::Instance,
    /// The adapter chosen.
    pub adapter: wgpu::Adapter,
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The first uncaptured validation error or device-loss message.
    error: Arc<Mutex<Option<String>>>,
}

impl GpuContext {
    /// Opens a headless context (no surface), blocking on the async requests.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<Self> {
        let instance = wgpu::Instance::new(Self::instance_descriptor());
        pollster::block_on(Self::with_instance(instance, None))
    }

    /// The instance descriptor the context uses, read from the environment.
    /// A window adds its display handle (`with_display_handle`) before
    /// creating the instance and passing it to [`GpuContext::with_instance`].
    pub fn instance_descriptor() -> wgpu::InstanceDescriptor {
        wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    }

    /// Picks an adapter from `instance` (able to present to `surface`, if
    /// given) and opens a device with the limits this crate needs, raised to
    /// what the adapter offers for buffer sizes.
    pub async fn with_instance(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self> {
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
        let adapter = pick_adapter(&instance, backends, surface).await?;
        let offered = adapter.limits();
        let required = required_limits(&offered);
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("motion-viewer"),
                required_features: wgpu::Features::empty(),
                required_limits: required,
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| {
                Error::gpu_unavailable(
                    format!(
                        "adapter '{}' refused a device: {e}",
                        adapter.get_info().name
                    ),
                    Some(Box::new(e)),
                )
            })?;
        let error = Arc::new(Mutex::new(None::<String>));
        let sink = Arc::clone(&error);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut slot = sink.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| e.to_string());
        }));
        let sink = Arc::clone(&error);
        device.set_device_lost_callback(move |reason, message| {
            let mut slot = sink.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| format!("device lost ({reason:?}): {message}"));
        });
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            error,
        })
    }

    /// The adapter's name and backend, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Gl)`.
    /// Browsers may keep the name to themselves.
    pub fn adapter_name(&self) -> String {
        let info = self.adapter.get_info();
        let name = match info.name.is_empty() {
            true => "unnamed adapter",
            false => info.name.as_str(),
        };
        format!("{name} ({:?})", info.backend)
    }

    /// Whether the adapter runs compute shaders on storage buffers (WebGL2
    /// does not: there meshes are deformed and their normals worked out on
    /// the CPU).
    pub(crate) fn has_compute(&self) -> bool {
        self.adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
            && self.device.limits().max_storage_buffers_per_shader_stage > 0
    }

    /// The limits the device was opened with.
    pub(crate) fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// The first GPU error recorded so far, as an [`Error::Gpu`].
    pub fn check(&self) -> Result<()> {
        let slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            Some(message) => Err(Error::gpu_device(message.clone(), None)),
            None => Ok(()),
        }
    }

    /// Blocks until all submitted work has finished, then reports any error.
    /// A browser cannot block: there this only hands finished work's
    /// callbacks over (WebGL2) and reports the errors seen so far.
    pub fn wait(&self) -> Result<()> {
        let poll = match cfg!(target_arch = "wasm32") {
            true => wgpu::PollType::Poll,
            false => wgpu::PollType::wait_indefinitely(),
        };
        self.device.poll(poll).map_err(|e| {
            Error::gpu_device(format!("waiting for the GPU: {e}"), Some(Box::new(e)))
        })?;
        self.check()
    }

    /// [`GpuContext::read_buffer`] without blocking: a browser maps the
    /// buffer on its own event loop, so a page awaits this.
    pub(crate) async fn read_buffer_async(
        &self,
        buffer: &wgpu::Buffer,
        size: u64,
    ) -> Result<Vec<u8>> {
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("read-back"),
            size,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
        self.queue.submit([encoder.finish()]);
        self.map_read_async(&staging).await
    }

    /// Maps a `MAP_READ` buffer whose copy has been submitted and returns its
    /// bytes, without blocking (natively the wait happens on the spot).
    pub(crate) async fn map_read_async(&self, staging: &wgpu::Buffer) -> Result<Vec<u8>> {
        let mapped = Mapping::default();
        let done = mapped.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |r| done.finish(r));
        // Natively nothing is mapped until the device is polled; in a
        // browser polling does nothing and the mapping finishes later.
        self.wait()?;
        mapped.await.map_err(|e| {
            Error::gpu_device(
                format!("mapping a read-back buffer: {e}"),
                Some(Box::new(e)),
            )
        })?;
        let bytes = staging
            .get_mapped_range(..)
            .map_err(|e| {
                Error::gpu_device(format!("reading a mapped buffer: {e}"), Some(Box::new(e)))
            })?
            .to_vec();
        staging.unmap();
        Ok(bytes)
    }
}

/// A buffer mapping under way, as a future: wgpu reports the end through a
/// callback.
#[derive(Debug, Clone, Default)]
struct Mapping(Arc<Mutex<MappingState>>);

#[derive(Debug, Default)]
struct MappingState {
    result: Option<std::result::Result<(), wgpu::BufferAsyncError>>,
    waker: Option<std::task::Waker>,
}

impl Mapping {
    fn finish(&self, result: std::result::Result<(), wgpu::BufferAsyncError>) {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        state.result = Some(result);
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }
}

impl std::future::Future for Mapping {
    type Output = std::result::Result<(), wgpu::BufferAsyncError>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match state.result.take() {
            Some(result) => std::task::Poll::Ready(result),
            None => {
                state.waker = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }
    }
}

/// `WGPU_ADAPTER_NAME` if set, else wgpu's preferred adapter, else a
/// software fallback; the error names the backends tried and what to install.
async fn pick_adapter(
    instance: &wgpu::Instance,
    backends: wgpu::Backends,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter> {
    let usable = |a: &wgpu::Adapter| surface.is_none_or(|s| a.is_surface_supported(s));
    if let Ok(wanted) = std::env::var("WGPU_ADAPTER_NAME") {
        let wanted = wanted.to_lowercase();
        let adapters = instance.enumerate_adapters(backends).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| usable(a) && a.get_info().name.to_lowercase().contains(&wanted))
            .ok_or_else(|| {
                Error::gpu_unavailable(
                    format!(
                        "no GPU adapter matches WGPU_ADAPTER_NAME={wanted:?} (found: {})",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                    None,
                )
            });
    }
    let power_preference = wgpu::PowerPreference::from_env().unwrap_or_default();
    for force_fallback_adapter in [false, true] {
        let options = wgpu::RequestAdapterOptions {
            power_preference,
            force_fallback_adapter,
            compatible_surface: surface,
            apply_limit_buckets: false,
        };
        if let Ok(adapter) = instance.request_adapter(&options).await {
            return Ok(adapter);
        }
    }
    Err(Error::gpu_unavailable(
        format!(
            "no GPU adapter found (tried backends {backends:?}); set WGPU_BACKEND=gl, \
         or install a Vulkan driver (apt-get install mesa-vulkan-drivers) or GL/EGL (libegl1-mesa)"
        ),
        None,
    ))
}

/// WebGPU-downlevel limits with the storage-buffer count, buffer sizes,
/// texture size and dispatch size raised to all the adapter offers, never
/// beyond it: large scenes bind their arrays in windows, as many at once as
/// the adapter allows (the passes need at least 6; WebGPU guarantees 8).
fn required_limits(offered: &wgpu::Limits) -> wgpu::Limits {
    let mut limits = wgpu::Limits::downlevel_defaults()
        .using_resolution(offered.clone())
        .using_alignment(offered.clone());
    limits.max_storage_buffers_per_shader_stage = offered.max_storage_buffers_per_shader_stage;
    limits.max_storage_buffer_binding_size = offered.max_storage_buffer_binding_size;
    limits.max_buffer_size = offered.max_buffer_size;
    limits.max_compute_workgroups_per_dimension = offered.max_compute_workgroups_per_dimension;
    limits.or_worse_values_from(offered)
}
