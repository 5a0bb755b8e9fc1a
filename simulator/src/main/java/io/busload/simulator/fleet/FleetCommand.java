package io.busload.simulator.fleet;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code busload simulate fleet}: a real coordinator under many virtual agents. */
@Command(name = "fleet", mixinStandardHelpOptions = true, description = "A coordinator under virtual agents.")
public final class FleetCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    return 0;
  }
}
