package io.busload.agent.cuda.cublas;

import io.busload.agent.cuda.Cuda;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * cuBLAS SGEMM through FFM, the matmul family's reference ({@code Step.Sgemm}).
 *
 * <p>{@link #load()} needs no GPU: it finds and loads the library and reads its version. The first
 * {@link #sgemm} on a context creates that context's handle there (stream 0, the legacy default stream that
 * JCuda's launches and event records use; {@code CUBLAS_DEFAULT_MATH}, which never lowers fp32 to TF32). Call
 * {@link #sgemm} on a thread whose current context is the device's primary context (see package-info), and
 * {@link #close()} before that context is released.
 */
public final class Cublas implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Cublas.class);
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT;
  private static final java.lang.foreign.AddressLayout POINTER = ValueLayout.ADDRESS;
  /** {@code CUBLAS_DEFAULT_MATH}: compute in at least the precision asked for, so fp32 stays fp32. */
  static final int DEFAULT_MATH = 0;
  /** {@code libraryPropertyType}: MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL. */
  private static final int[] VERSION_PARTS = {0, 1, 2};

  private final Path library;
  private final String version;
  private final MethodHandle create;
  private final MethodHandle destroy;
  private final MethodHandle setStream;
  private final MethodHandle setMathMode;
  private final MethodHandle getVersion;
  private final MethodHandle sgemm;
  /** Host scalars alpha = 1, beta = 0 (pointer mode host: read during the call). */
  private final MemorySegment alpha;
  private final MemorySegment beta;
  private final Map<CUcontext, MemorySegment> handles = new ConcurrentHashMap<>();
  private volatile int handleVersion;

  private Cublas(Path library, SymbolLookup symbols) {
    this.library = library;
    Linker linker = Linker.nativeLinker();
    create = downcall(linker, symbols, "cublasCreate_v2", FunctionDescriptor.of(INT, POINTER));
    destroy = downcall(linker, symbols, "cublasDestroy_v2", FunctionDescriptor.of(INT, POINTER));
    setStream = downcall(linker, symbols, "cublasSetStream_v2", FunctionDescriptor.of(INT, POINTER, POINTER));
    setMathMode = downcall(linker, symbols, "cublasSetMathMode", FunctionDescriptor.of(INT, POINTER, INT));
    getVersion = downcall(linker, symbols, "cublasGetVersion_v2", FunctionDescriptor.of(INT, POINTER, POINTER));
    sgemm = downcall(linker, symbols, "cublasSgemm_v2", FunctionDescriptor.of(INT,
        POINTER, INT, INT, INT, INT, INT, POINTER, POINTER, INT, POINTER, INT, POINTER, POINTER, INT));
    MethodHandle getProperty = downcall(linker, symbols, "cublasGetProperty", FunctionDescriptor.of(INT, INT, POINTER));
    Arena auto = Arena.ofAuto(); // lives as long as this object refers to its segments
    alpha = auto.allocateFrom(FLOAT, 1.0f);
    beta = auto.allocateFrom(FLOAT, 0.0f);
    version = libraryVersion(getProperty, auto);
  }

  /**
   * Loads the host's {@code libcublas.so.*} ({@code BUSLOAD_CUBLAS} overrides the search).
   *
   * @throws CublasUnavailableException with the reason: none found (naming every place searched), it does not
   *     load, or it lacks a function we call
   */
  public static Cublas load() {
    return load(CublasLibrary.host());
  }

  static Cublas load(CublasLibrary.Search search) {
    Path path = CublasLibrary.find(search);
    // The library stays loaded for the life of the process: unloading cuBLAS under a live CUDA runtime state
    // buys nothing, and a later load() reuses it.
    Arena global = Arena.global();
    try {
      // libcublas needs libcublasLt of the same version; a toolkit folder off the loader's path has both, so
      // load it first and the loader finds it by soname.
      CublasLibrary.lightweightBeside(path).ifPresent(lt -> SymbolLookup.libraryLookup(lt, global));
      return new Cublas(path, SymbolLookup.libraryLookup(path, global));
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new CublasUnavailableException("cannot load " + path + ": " + e.getMessage(), e);
    }
  }

  /**
   * Row-major {@code C(m x n) = A(m x k) x B(k x n)} in fp32, dense matrices, queued on the legacy default stream
   * of the current context (asynchronous like a kernel launch: errors of the run surface at the next
   * synchronisation).
   */
  public void sgemm(int m, int n, int k, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
    SgemmCall call = SgemmCall.rowMajor(m, n, k);
    MemorySegment handle = handleForCurrentContext();
    MemorySegment first = device(call.first() == SgemmCall.Operand.A ? a : b);
    MemorySegment second = device(call.second() == SgemmCall.Operand.A ? a : b);
    MemorySegment out = device(c);
    int status;
    try {
      status = (int) sgemm.invokeExact(handle, call.transa(), call.transb(), call.m(), call.n(), call.k(), alpha,
          first, call.lda(), second, call.ldb(), beta, out, call.ldc());
    } catch (Throwable t) {
      throw rethrow(t);
    }
    CublasStatus.check(status, "cublasSgemm_v2", "row-major m=" + m, "n=" + n, "k=" + k,
        "column-major call (N, N, " + call.m() + ", " + call.n() + ", " + call.k() + ", lda=" + call.lda()
            + ", ldb=" + call.ldb() + ", ldc=" + call.ldc() + ")");
  }

  /** The library file and its version, for example {@code /usr/local/cuda/lib64/libcublas.so.13 (cuBLAS 13.0.2)}. */
  public String describe() {
    String text = library + " (cuBLAS " + version + ")";
    int handle = handleVersion;
    return handle == 0 ? text : text + ", handle reports " + handle;
  }

  /** The library file that was loaded. */
  public Path library() {
    return library;
  }

  /**
   * Destroys every handle, each with its context current; call before those contexts are released. The library
   * stays loaded. Never throws: it also runs after a sticky error (illegal address, ...) where cuBLAS may refuse
   * to tear down in the broken context and the caller's next step, resetting that context, must still happen;
   * a failed destroy is logged and its handle dropped.
   */
  @Override
  public void close() {
    for (Map.Entry<CUcontext, MemorySegment> entry : handles.entrySet()) {
      try {
        Cuda.check(JCudaDriver.cuCtxPushCurrent(entry.getKey()), "cuCtxPushCurrent", "to destroy a cuBLAS handle");
        try {
          CublasStatus.check(invokeInt(destroy, entry.getValue()), "cublasDestroy_v2");
        } finally {
          Cuda.check(JCudaDriver.cuCtxPopCurrent(new CUcontext()), "cuCtxPopCurrent", "after destroying a cuBLAS handle");
        }
      } catch (RuntimeException e) {
        LOG.warn("cuBLAS handle of context {} not destroyed cleanly: {}", entry.getKey(), e.getMessage());
      }
    }
    handles.clear();
  }

  private MemorySegment handleForCurrentContext() {
    CUcontext context = new CUcontext();
    Cuda.check(JCudaDriver.cuCtxGetCurrent(context), "cuCtxGetCurrent", "before cuBLAS");
    if (context.equals(new CUcontext())) {
      // Without this, cuBLAS would initialise and use device 0's primary context, wherever our buffers live.
      throw new IllegalStateException("cuBLAS called with no current CUDA context on " + Thread.currentThread().getName());
    }
    return handles.computeIfAbsent(context, ignored -> createHandle());
  }

  private MemorySegment createHandle() {
    try (Arena call = Arena.ofConfined()) {
      MemorySegment slot = call.allocate(POINTER);
      CublasStatus.check(invokeInt(create, slot), "cublasCreate_v2");
      MemorySegment handle = slot.get(POINTER, 0);
      try {
        CublasStatus.check(invokeInt(setStream, handle, MemorySegment.NULL), "cublasSetStream_v2", "stream=0 (legacy default)");
        CublasStatus.check(invokeInt(setMathMode, handle, DEFAULT_MATH), "cublasSetMathMode", "CUBLAS_DEFAULT_MATH");
        MemorySegment versionSlot = call.allocate(INT);
        CublasStatus.check(invokeInt(getVersion, handle, versionSlot), "cublasGetVersion_v2");
        handleVersion = versionSlot.get(INT, 0);
      } catch (RuntimeException e) {
        invokeInt(destroy, handle);
        throw e;
      }
      return handle;
    }
  }

  private static String libraryVersion(MethodHandle getProperty, Arena arena) {
    MemorySegment slot = arena.allocate(INT);
    StringBuilder text = new StringBuilder();
    for (int part : VERSION_PARTS) {
      int status;
      try {
        status = (int) getProperty.invokeExact(part, slot);
      } catch (Throwable t) {
        throw rethrow(t);
      }
      CublasStatus.check(status, "cublasGetProperty", "type=" + part);
      text.append(text.isEmpty() ? "" : ".").append(slot.get(INT, 0));
    }
    return text.toString();
  }

  /** A {@link CUdeviceptr}'s address as a zero-length segment: FFM passes it as the C pointer. */
  private static MemorySegment device(CUdeviceptr pointer) {
    long address = DeviceAddress.of(pointer);
    if (address == 0) {
      throw new IllegalArgumentException("cuBLAS given a null device pointer (never allocated?)");
    }
    return MemorySegment.ofAddress(address);
  }

  private static int invokeInt(MethodHandle handle, MemorySegment pointer) {
    try {
      return (int) handle.invokeExact(pointer);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static int invokeInt(MethodHandle handle, MemorySegment pointer, MemorySegment other) {
    try {
      return (int) handle.invokeExact(pointer, other);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static int invokeInt(MethodHandle handle, MemorySegment pointer, int value) {
    try {
      return (int) handle.invokeExact(pointer, value);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static MethodHandle downcall(Linker linker, SymbolLookup symbols, String name, FunctionDescriptor descriptor) {
    return io.busload.agent.cuda.NativeCalls.downcall(linker, symbols, name, descriptor,
        missing -> new CublasUnavailableException("the cuBLAS library has no symbol " + missing));
  }

  private static RuntimeException rethrow(Throwable t) {
    return io.busload.agent.cuda.NativeCalls.rethrow(t);
  }
}
