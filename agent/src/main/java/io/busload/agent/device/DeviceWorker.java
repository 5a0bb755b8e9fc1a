package io.busload.agent.device;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The one platform thread a device's calls run on: a CUDA context is current per thread, and JCuda must
 * never run on a Vert.x event loop. Tasks queue, so a device runs one thing at a time.
 */
public final class DeviceWorker implements AutoCloseable {
  private final Device device;
  private final ExecutorService thread;
  private final CompletableFuture<Void> attached;

  public DeviceWorker(Device device) {
    this.device = device;
    this.thread = Executors.newSingleThreadExecutor(
        Thread.ofPlatform().name("busload-device-" + device.shortId()).daemon(true).factory());
    this.attached = CompletableFuture.runAsync(device::attach, thread);
  }

  public Device device() {
    return device;
  }

  /** Runs {@code task} on the device's thread after everything queued before it. */
  public <T> CompletableFuture<T> submit(Callable<T> task) {
    return attached.thenApplyAsync(ignored -> {
      try {
        return task.call();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new DeviceException(e.getMessage(), e);
      }
    }, thread);
  }

  /** Frees the device on its own thread, then stops the thread. */
  @Override
  public void close() {
    try {
      CompletableFuture.runAsync(device::close, thread).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Closing is best effort: the process is going away or the device is already broken.
    } finally {
      thread.shutdownNow();
    }
  }
}
