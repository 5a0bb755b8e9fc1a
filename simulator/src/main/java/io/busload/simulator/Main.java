package io.busload.simulator;

import io.busload.simulator.fleet.FleetCommand;
import io.busload.simulator.membership.MembershipCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./busload simulate membership|fleet ...}: the fleet's capacity measurements, each printing its figures. */
@Command(name = "busload simulate", mixinStandardHelpOptions = true,
    description = "Measure the fleet at scale: membership cost of real member processes, or a coordinator under "
        + "many virtual agents.",
    subcommands = {MembershipCommand.class, FleetCommand.class, io.busload.simulator.fleet.FloodCommand.class})
public final class Main implements Runnable {
  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).execute(args));
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }
}
