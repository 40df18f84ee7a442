#!/usr/bin/env bash
# Makes sure Docker and a Compose are installed and dockerd answers, for
# make up-local and CI: installs Debian's docker.io and docker-compose when
# either is missing, and starts dockerd when it is not running. Needs root
# for both; says so otherwise.
set -euo pipefail

have_compose() { command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1; }

if ! command -v docker >/dev/null 2>&1 || ! have_compose; then
	if [ "$(id -u)" != 0 ]; then
		echo "docker-up: docker or docker-compose is missing; install them (apt-get install docker.io docker-compose) or run as root" >&2
		exit 1
	fi
	echo "docker-up: installing docker.io and docker-compose" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io docker-compose >&2
fi

if ! docker info >/dev/null 2>&1; then
	if [ "$(id -u)" != 0 ]; then
		echo "docker-up: dockerd does not answer; start it (dockerd &) or run as root" >&2
		exit 1
	fi
	echo "docker-up: starting dockerd (log: /var/log/dockerd.log)" >&2
	nohup dockerd >/var/log/dockerd.log 2>&1 &
	for _ in $(seq 60); do
		docker info >/dev/null 2>&1 && break
		sleep 0.5
	done
	if ! docker info >/dev/null 2>&1; then
		echo "docker-up: dockerd did not answer within 30s; its log:" >&2
		tail -20 /var/log/dockerd.log >&2
		exit 1
	fi
fi
