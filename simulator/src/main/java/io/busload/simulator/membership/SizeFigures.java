package io.busload.simulator.membership;

/**
 * What a cluster of {@code members} processes cost, measured over one steady window (SI units: seconds, bytes).
 *
 * @param connections established TCP connections among the members' Hazelcast ports
 * @param bytesPerSecond bytes all members received from each other per second, idle (heartbeats and the like)
 * @param cpuCores CPU of all members together over the window, in cores
 * @param rssBytesMedian resident memory of the median member
 * @param heapBytesMedian heap in use in the median member (last sample)
 * @param joinSeconds time for one more member to join (inside its JVM: {@code Cluster.start} to return)
 * @param joinSeenByAllSeconds from the joiner's start to the last member seeing it
 * @param departureSeenMedianSeconds from {@code kill -9} of that member to the median member seeing it gone
 * @param departureSeenMaxSeconds the same to the last member seeing it gone; NaN when some never did in time
 * @param seedCpuCores CPU of the data member alone (the coordinator's role: master, partitions, Vert.x's maps)
 * @param seedRssBytes resident memory of the data member
 * @param loadAverage the machine's one-minute load average when the window ended (the CPU is shared)
 * @param trafficSource how {@code bytesPerSecond} was counted ({@code Sockets.SS} or {@code Sockets.PROC})
 */
public record SizeFigures(int members, int connections, double bytesPerSecond, double cpuCores,
    long rssBytesMedian, long heapBytesMedian, double joinSeconds, double joinSeenByAllSeconds,
    double departureSeenMedianSeconds, double departureSeenMaxSeconds, double seedCpuCores, long seedRssBytes,
    double windowSeconds, double loadAverage, String trafficSource) {

  public double connectionsPerMember() {
    return 2.0 * connections / members;
  }

  public double bytesPerSecondPerMember() {
    return bytesPerSecond / members;
  }

  public double cpuCoresPerMember() {
    return cpuCores / members;
  }
}
