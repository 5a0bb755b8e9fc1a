package io.busload.agent.cpu;

import io.busload.testsupport.SystemProperty;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For test classes that check what a CPU run stores, sends or prints, not how steady its timings are: while the class
 * runs, each CPU case samples for at most 0.2 s instead of 1 s (on a shared machine the spread rarely settles, so
 * every case runs to the cap). {@code @ExtendWith(ShortCpuCases.class)} on the class.
 */
public final class ShortCpuCases implements BeforeAllCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace HERE = ExtensionContext.Namespace.create(ShortCpuCases.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    context.getStore(HERE).put(SystemProperty.class, SystemProperty.set(CpuDevice.TIME_CAP_PROPERTY, "0.2"));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    context.getStore(HERE).get(SystemProperty.class, SystemProperty.class).close();
  }
}
