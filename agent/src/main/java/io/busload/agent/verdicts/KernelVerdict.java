package io.busload.agent.verdicts;

import io.busload.analysis.verdict.Comparison;

/** One kernel case of a compare: both sides' results and the verdict on them. */
record KernelVerdict(String kernel, String params, Measured baseline, Measured candidate, Comparison comparison) {}
