/** One run in detail: results, samples, validity, fingerprint, export. */
package io.busload.dashboard.run;
