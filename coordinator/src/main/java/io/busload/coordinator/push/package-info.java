/**
 * Results pushed from anywhere ({@code ./busload push FILE...}): air-gapped GPU hosts, one-off cloud
 * instances and CI jobs that cannot join the cluster send the files {@code ./busload run} writes to a coordinator's
 * REST API. Here a file is read (JSON or CSV, with the line of every row), its results pass the checks results from
 * the event bus pass, and the file is stored whole or not at all, then announced as the fleet's results are. Sits
 * beside {@code fleet} (whose checks and announcements it reuses) and above {@code store}.
 */
package io.busload.coordinator.push;
