package io.busload.agent.device;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which devices of one agent are measuring. An agent runs one worker per GPU, and runs on several GPUs go
 * on at once; their results are timed per device, each on its own stream and events, but the devices share the
 * host's power, memory and links. So each result names the other devices that measured while its samples were
 * taken, and a reader can tell a number taken alone from one taken beside others.
 *
 * <p>A device counts as busy for the whole of a run on it. A window over the samples sees every other device busy at
 * any moment inside it: busy when it closes, or whose last run ended after it opened.
 */
public final class HostActivity {
  private final Map<String, State> devices = new ConcurrentHashMap<>();

  private static final class State {
    final AtomicInteger runs = new AtomicInteger();
    /** When its last run ended (System.nanoTime); meaningless until {@link #ended}. */
    volatile long lastEnd;
    volatile boolean ended;
  }

  /** Marks {@code deviceId} busy until the returned handle is closed. */
  public Busy busy(String deviceId) {
    State state = devices.computeIfAbsent(deviceId, id -> new State());
    state.runs.incrementAndGet();
    return () -> {
      state.lastEnd = System.nanoTime();
      state.ended = true;
      state.runs.decrementAndGet();
    };
  }

  /** Opens a window on {@code deviceId}'s samples from now. */
  public Window window(String deviceId) {
    long opened = System.nanoTime();
    return () -> devices.entrySet().stream()
        .filter(e -> !e.getKey().equals(deviceId))
        .filter(e -> busySince(e.getValue(), opened))
        .map(Map.Entry::getKey).sorted().toList();
  }

  private static boolean busySince(State state, long opened) {
    return state.runs.get() > 0 || (state.ended && state.lastEnd - opened >= 0);
  }

  /** A run in progress on one device. */
  public interface Busy extends AutoCloseable {
    @Override
    void close();
  }

  /** The span of one result's samples. */
  public interface Window {
    /** The other devices that were busy at any moment from the window's opening until now, sorted. */
    List<String> othersBusy();
  }
}
