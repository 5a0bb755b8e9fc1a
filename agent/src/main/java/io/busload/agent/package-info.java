/**
 * The agent's command line: {@code run} measures a suite on one device and prints it
 * with no cluster at all; {@code agent} joins the fleet's cluster and serves the coordinator's runs.
 */
package io.busload.agent;
