package io.busload.protocol;

import java.util.List;

/**
 * Hardware counters of one kernel case beside what the kernel's model predicts ({@code run --profile}):
 * Nsight Compute (ncu) counted one launch of each of the case's kernel steps, run by the native harness from the
 * same fatbin and plan as the timed measurement. Every measured figure is ncu's, never estimated; a figure ncu
 * did not report, or one the model does not predict (a case with no loads, say), is null.
 *
 * <p>Units are SI: bytes; sectors per request is a ratio (32-byte sectors over warp-level requests).
 *
 * @param loadSectorsPerRequest global load sectors over global load requests, summed over the case's launches
 * @param modelLoadSectorsPerRequest the coalescing model's sectors per load request (mean over its loads)
 * @param storeSectorsPerRequest as loads, for global stores
 * @param modelStoreSectorsPerRequest as loads, for global stores
 * @param dramBytesRead bytes read from DRAM ({@code dram__bytes_read.sum})
 * @param modelDramBytesRead bytes of the sectors the model predicts for the useful bytes read (useful bytes x
 *     sectors x 32 / requested bytes): DRAM should read between the result's {@code bytesRead} and this
 * @param dramBytesWritten bytes written to DRAM ({@code dram__bytes_write.sum})
 * @param modelDramBytesWritten as {@code modelDramBytesRead}, for the useful bytes written
 * @param flagged whether any measured figure lies more than {@link #TOLERANCE} from the model (the reasons are in
 *     {@code flags})
 * @param flags one line per difference beyond the tolerance, empty when the counters agree with the model
 * @param kernels the entry points ncu profiled for this case, in launch order
 * @param method how the counters were taken, in words, for whoever reads them
 */
public record Counters(
    Double loadSectorsPerRequest,
    Double modelLoadSectorsPerRequest,
    Double storeSectorsPerRequest,
    Double modelStoreSectorsPerRequest,
    Double dramBytesRead,
    Double modelDramBytesRead,
    Double dramBytesWritten,
    Double modelDramBytesWritten,
    boolean flagged,
    List<String> flags,
    List<String> kernels,
    String method) {
  /** A measured figure further than this fraction from the model's is flagged. */
  public static final double TOLERANCE = 0.10;

  public Counters {
    flags = flags == null ? List.of() : List.copyOf(flags);
    kernels = kernels == null ? List.of() : List.copyOf(kernels);
    // A reason to flag is a flag: a message claiming otherwise cannot hide a listed difference.
    flagged = flagged || !flags.isEmpty();
  }

  /** Every number of the record, for checks that each is finite and not negative; nulls included as null. */
  public List<Double> figures() {
    return java.util.Arrays.asList(loadSectorsPerRequest, modelLoadSectorsPerRequest, storeSectorsPerRequest,
        modelStoreSectorsPerRequest, dramBytesRead, modelDramBytesRead, dramBytesWritten, modelDramBytesWritten);
  }
}
