package io.busload.agent.cuda;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.function.Function;

/** What every FFM binding of a vendor library here (cuBLAS, NVML) does alike: bind a symbol, unwrap a call's throw. */
public final class NativeCalls {
  private NativeCalls() {}

  /** The downcall to {@code name}; {@code missing}'s exception, naming the symbol, where the library lacks it. */
  public static MethodHandle downcall(Linker linker, SymbolLookup symbols, String name, FunctionDescriptor descriptor,
      Function<String, RuntimeException> missing) {
    MemorySegment symbol = symbols.find(name).orElseThrow(() -> missing.apply(name));
    return linker.downcallHandle(symbol, descriptor);
  }

  /** One downcall returning a library's status code, as {@code (int) handle.invokeExact(...)} written in a lambda. */
  @FunctionalInterface
  public interface StatusCall {
    int invoke() throws Throwable;
  }

  /**
   * The status {@code call} returns; what it throws, unwrapped by {@link #rethrow}. {@code invokeExact} declares
   * Throwable, so without this each call site would carry its own try and catch.
   */
  public static int status(StatusCall call) {
    try {
      return call.invoke();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** A {@code MethodHandle.invokeExact} throwable as an unchecked one to throw; errors are thrown as they are. */
  public static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException e) {
      return e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException("native call failed", t);
  }
}
