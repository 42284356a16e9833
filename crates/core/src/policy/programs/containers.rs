//! Containers and clusters: docker, podman, nerdctl, kubectl, oc, helm.
//!
//! What runs in a container or pod (`docker exec CTR cmd`, `docker run IMG cmd`, `kubectl exec POD
//! -- cmd`) is analysed as if typed; options that give a container the host (`--privileged`, a bind
//! mount of `/` or a lock-out path, `--pid=host`, `--cap-add`) ask; `docker cp`/`kubectl cp` to this
//! host write. Dangerous: `docker system prune`, `docker volume rm/prune`, `kubectl delete`,
//! `helm uninstall`.
//!
//! Every program here has a complete spec: docker (with the Compose v2 plugin, compose.spec,
//! which the standalone Compose v1 `docker-compose` shares), podman, nerdctl, kubectl, oc and
//! helm list every subcommand and option (docker, podman and kubectl from their own help;
//! compose, nerdctl, oc and helm, which Debian does not package, from their upstream references
//! and source: see each .spec file's header). An option or subcommand a spec does not list asks.

use super::super::paths::{lockout_match, normalise_path};
use super::args::Call;
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["docker"],
        family: "containers",
        text: concat!(
            "@operands args
               --config=X
               -c X, --context=X
               -D, --debug
               -H X, --host=X
               -l X, --log-level=X
               --tls
               --tlscacert=X
               --tlscert=X
               --tlskey=X
               --tlsverify
               -v, --version
               --help
               @block docker-1
               @use docker-2
               -d, --detach
               --detach-keys=X
               --sig-proxy
               @end
               @block docker-2
               @use docker-5
               @use docker-6
               @use docker-9
               @use docker-14
               --annotation=X
               -a X, --attach=X
               --blkio-weight-device=X
               --cgroupns=X : judged =host shares the host's namespace (asks)
               --cidfile=X : writes
               --cpu-count=X
               --cpu-percent=X
               --device=X : judged gives the container host powers (asks)
               --device-cgroup-rule=X
               --device-read-bps=X
               --device-read-iops=X
               --device-write-bps=X
               --device-write-iops=X
               --domainname=X
               --expose=X
               --gpus=X
               --group-add=X
               -h X, --hostname=X
               -i, --interactive
               --io-maxbandwidth=X
               --io-maxiops=X
               --ip=X
               --ip6=X
               --ipc=X : judged =host shares the host's namespace (asks)
               --kernel-memory=X
               --label-file=X : reads
               --link=X
               --link-local-ip=X
               --mac-address=X
               --memory-swappiness=X
               --network-alias=X
               --oom-kill-disable
               --pid=X : judged =host shares the host's namespace (asks)
               --privileged : judged gives the container the whole host (asks)
               -P, --publish-all
               --pull=X
               --runtime=X
               --stop-timeout=X
               --storage-opt=X
               --tmpfs=X
               --use-api-socket
               --userns=X : judged =host shares the host's namespace (asks)
               --uts=X : judged =host shares the host's namespace (asks)
               -v X, --volume=X : judged mounts host folders (/ or a lock-out path asks)
               --volume-driver=X
               --volumes-from=X
               @end
               @block docker-3
               @use docker-5
               --credential-spec=X
               -d, --detach
               --endpoint-mode=X
               --hostname=X
               --limit-cpu=X
               --limit-memory=X
               --limit-pids=X
               --max-concurrent=X
               --no-resolve-image
               --replicas=X
               --replicas-max-per-node=X
               --reserve-cpu=X
               --reserve-memory=X
               --restart-condition=X
               --restart-delay=X
               --restart-max-attempts=X
               --restart-window=X
               --rollback-delay=X
               --rollback-failure-action=X
               --rollback-max-failure-ratio=X
               --rollback-monitor=X
               --rollback-order=X
               --rollback-parallelism=X
               --stop-grace-period=X
               --update-delay=X
               --update-failure-action=X
               --update-max-failure-ratio=X
               --update-monitor=X
               --update-order=X
               --update-parallelism=X
               --with-registry-auth
               @end
               @block docker-4
               @use docker-6
               --build-arg=X
               --cache-from=X
               --compress
               -f X, --file=X : reads
               --force-rm
               --iidfile=X : writes
               --isolation=X
               --label=X
               --no-cache
               --pull
               -q, --quiet
               --squash
               -t X, --tag=X
               --target=X
               --help
               @end
               @block docker-5
               --cap-add=X : judged gives the container host powers (asks)
               --cap-drop=X
               --entrypoint=X : judged the program run in the container, analysed as typed
               --health-cmd=X
               --health-interval=X
               --health-retries=X
               --health-start-interval=X
               --health-start-period=X
               --health-timeout=X
               --help
               --init
               --isolation=X
               --log-driver=X
               --log-opt=X
               --no-healthcheck
               --oom-score-adj=X
               -q, --quiet
               --read-only
               --stop-signal=X
               -t, --tty
               -u X, --user=X
               -w X, --workdir=X
               --help
               @end
               @block docker-6
               @use docker-15
               --add-host=X
               --cgroup-parent=X
               --disable-content-trust
               --network=X
               --platform=X
               --rm
               --security-opt=X : judged turning confinement off asks
               --shm-size=X
               --ulimit=X
               @end
               @block docker-7
               @use docker-14
               @use docker-15
               --help
               @end
               @block docker-8
               -d, --detach
               --detach-keys=X
               -e X, --env=X
               --env-file=X : reads
               -i, --interactive
               --privileged : judged gives the container the whole host (asks)
               -t, --tty
               -u X, --user=X
               -w X, --workdir=X
               --help
               @end
               @block docker-9
               --dns=X
               --dns-option=X
               --dns-search=X
               -e X, --env=X
               --env-file=X : reads
               -l X, --label=X
               --mount=X : judged mounts host folders (/ or a lock-out path asks)
               --name=X
               -p X, --publish=X
               --sysctl=X
               @end
               @block docker-10
               @use docker-20
               -n X, --last=X
               -l, --latest
               -s, --size
               @end
               @block docker-11
               @use docker-20
               --digests
               --tree
               @end
               @block docker-12
               --autolock
               --cert-expiry=X
               --dispatcher-heartbeat=X
               --external-ca=X
               --max-snapshots=X
               --snapshot-interval=X
               --task-history-limit=X
               --help
               @end
               @block docker-13
               @use docker-19
               --until=X
               @end
               @block docker-14
               --blkio-weight=X
               --cpu-rt-period=X
               --cpu-rt-runtime=X
               --cpus=X
               --memory-reservation=X
               --pids-limit=X
               --restart=X
               @end
               @block docker-15
               --cpu-period=X
               --cpu-quota=X
               -c X, --cpu-shares=X
               --cpuset-cpus=X
               --cpuset-mems=X
               -m X, --memory=X
               --memory-swap=X
               @end
               @block docker-16
               -a, --attach
               --checkpoint=X
               --checkpoint-dir=X
               --detach-keys=X
               -i, --interactive
               --help
               @end
               @block docker-17
               --format=X
               -H, --human
               --no-trunc
               --platform=X
               -q, --quiet
               --help
               @end
               @block docker-18
               @use docker-25
               --no-resolve
               @end
               @block docker-19
               --details
               -f, --follow
               --since=X
               -n X, --tail=X
               -t, --timestamps
               --help
               @end
               @block docker-20
               @use docker-25
               -a, --all
               @end
               @block docker-21
               -a, --all-tags
               --disable-content-trust
               --platform=X
               -q, --quiet
               --help
               @end
               @block docker-22
               -a X, --author=X
               -c X, --change=X
               -m X, --message=X
               -p, --pause
               --help
               @end
               @block docker-23
               -a, --all
               --format=X
               --no-stream
               --no-trunc
               --help
               @end
               @block docker-24
               -d X, --driver=X
               --label=X
               -o X, --opt=X
               --scope=X
               --help
               @end
               @block docker-25
               -f X, --filter=X
               --format=X
               --no-trunc
               -q, --quiet
               --help
               @end
               @block docker-26
               -f X, --filter=X
               --format=X
               --since=X
               --until=X
               --help
               @end
               @sub run : changes
               @posix
               @use docker-1
               @sub exec : changes
               @posix
               @use docker-8
               @sub ps : read-only
               @use docker-10
               @sub build : changes
               @use docker-4
               @sub pull : changes
               @use docker-21
               @sub push : changes
               @use docker-21
               @sub images : read-only
               @use docker-11
               @sub login : read-only
               -p X, --password=X
               --password-stdin : harmless
               -u X, --username=X
               --help
               @sub logout : read-only
               --help
               @sub search : read-only
               -f X, --filter=X
               --format=X
               --limit=X
               --no-trunc
               --help
               @sub version : read-only
               -f X, --format=X
               --help
               @sub info : read-only
               -f X, --format=X
               --help
               @sub builder : read-only
               --help
               @sub builder/build : changes
               @use docker-4
               @sub builder/prune : changes
               -a, --all
               --filter=X
               -f, --force
               --keep-storage=X
               --help
               @sub checkpoint : read-only
               --help
               @sub checkpoint/create : changes
               --checkpoint-dir=X
               --leave-running
               --help
               @sub checkpoint/ls, checkpoint/list : changes
               --checkpoint-dir=X
               --help
               @sub checkpoint/rm, checkpoint/remove : changes
               --checkpoint-dir=X
               --help
               @sub container : read-only
               --help
               @sub container/attach : changes
               --detach-keys=X
               --no-stdin
               --sig-proxy
               --help
               @sub container/commit : changes
               @use docker-22
               @sub container/cp : changes
               -a, --archive
               -L, --follow-link
               -q, --quiet
               --help
               @sub container/create : changes
               @posix
               @use docker-2
               @sub container/diff : read-only
               --help
               @sub container/exec : changes
               @posix
               @use docker-8
               @sub container/export : changes
               -o X, --output=X : writes
               --help
               @sub container/inspect : read-only
               -f X, --format=X
               -s, --size
               --help
               @sub container/kill : changes
               -s X, --signal=X
               --help
               @sub container/logs : read-only
               @use docker-13
               @sub container/ls, container/list, container/ps : read-only
               @use docker-10
               @sub container/pause : changes
               --help
               @sub container/port : read-only
               --help
               @sub container/prune : dangerous removes every stopped container and what is in it
               --filter=X
               -f, --force
               --help
               @sub container/rename : changes
               --help
               @sub container/restart : changes
               -s X, --signal=X
               -t X, --timeout=X
               --help
               @sub container/rm, container/remove : changes
               -f, --force
               -l, --link
               -v, --volumes
               --help
               @sub container/run : changes
               @posix
               @use docker-1
               @sub container/start : changes
               @use docker-16
               @sub container/stats : read-only
               @use docker-23
               @sub container/stop : changes
               -s X, --signal=X
               -t X, --timeout=X
               --help
               @sub container/top : read-only
               --help
               @sub container/unpause : changes
               --help
               @sub container/update : changes
               @use docker-7
               @sub container/wait : read-only
               --help
               @sub context : read-only
               --help
               @sub context/create : changes
               --description=X
               --docker=X
               --from=X
               --help
               @sub context/export : changes
               --help
               @sub context/import : changes
               --help
               @sub context/inspect : read-only
               -f X, --format=X
               --help
               @sub context/ls, context/list : read-only
               --format=X
               -q, --quiet
               --help
               @sub context/rm, context/remove : changes
               -f, --force
               --help
               @sub context/show : read-only
               --help
               @sub context/update : changes
               --description=X
               --docker=X
               --help
               @sub context/use : changes
               --help
               @sub image : read-only
               --help
               @sub image/build : changes
               @use docker-4
               @sub image/history : read-only
               @use docker-17
               @sub image/import : changes
               -c X, --change=X
               -m X, --message=X
               --platform=X
               --help
               @sub image/inspect : read-only
               -f X, --format=X
               --platform=X
               --help
               @sub image/load : changes
               -i X, --input=X : reads
               --platform=X
               -q, --quiet
               --help
               @sub image/ls, image/list : read-only
               @use docker-11
               @sub image/prune : changes
               -a, --all
               --filter=X
               -f, --force
               --help
               @sub image/pull : changes
               @use docker-21
               @sub image/push : changes
               @use docker-21
               @sub image/rm, image/remove : changes
               -f, --force
               --no-prune
               --platform=X
               --help
               @sub image/save : changes
               -o X, --output=X : writes
               --platform=X
               --help
               @sub image/tag : changes
               --help
               @sub manifest : read-only
               --help
               @sub manifest/annotate : changes
               --arch=X
               --os=X
               --os-features=X
               --os-version=X
               --variant=X
               --help
               @sub manifest/create : changes
               -a, --amend
               --insecure
               --help
               @sub manifest/inspect : read-only
               --insecure
               -v, --verbose
               --help
               @sub manifest/push : changes
               --insecure
               -p, --purge
               --help
               @sub manifest/rm : changes
               --help
               @sub network : read-only
               --help
               @sub network/connect : changes
               --alias=X
               --driver-opt=X
               --gw-priority=X
               --ip=X
               --ip6=X
               --link=X
               --link-local-ip=X
               --help
               @sub network/create : changes
               @use docker-24
               --attachable
               --aux-address=X
               --config-from=X
               --config-only
               --gateway=X
               --ingress
               --internal
               --ip-range=X
               --ipam-driver=X
               --ipam-opt=X
               --ipv4
               --ipv6
               --subnet=X
               @sub network/disconnect : changes
               -f, --force
               --help
               @sub network/inspect : read-only
               -f X, --format=X
               -v, --verbose
               --help
               @sub network/ls, network/list : read-only
               @use docker-25
               @sub network/prune : changes
               --filter=X
               -f, --force
               --help
               @sub network/rm, network/remove : changes
               -f, --force
               --help
               @sub plugin : read-only
               --help
               @sub plugin/create : changes
               --compress
               --help
               @sub plugin/disable : changes
               -f, --force
               --help
               @sub plugin/enable : unprovable starts a plugin, code that runs with the daemon's rights
               --timeout=X
               --help
               @sub plugin/inspect : read-only
               -f X, --format=X
               --help
               @sub plugin/install : unprovable installs a plugin, code that runs with the daemon's rights
               --alias=X
               --disable
               --disable-content-trust
               --grant-all-permissions
               --help
               @sub plugin/ls, plugin/list : read-only
               @use docker-25
               @sub plugin/push : changes
               --disable-content-trust
               --help
               @sub plugin/rm, plugin/remove : changes
               -f, --force
               --help
               @sub plugin/set : changes
               --help
               @sub plugin/upgrade : unprovable installs a plugin, code that runs with the daemon's rights
               --disable-content-trust
               --grant-all-permissions
               --skip-remote-check
               --help
               @sub system : read-only
               --help
               @sub system/df : read-only
               --format=X
               -v, --verbose
               --help
               @sub system/events : read-only
               @use docker-26
               @sub system/info : read-only
               -f X, --format=X
               --help
               @sub system/prune : dangerous removes all unused containers, images and networks
               -a, --all
               --filter=X
               -f, --force
               --volumes
               --help
               @sub trust : read-only
               --help
               @sub trust/inspect : read-only
               --pretty
               --help
               @sub trust/revoke : changes
               -y, --yes
               --help
               @sub trust/sign : changes
               --local
               --help
               @sub volume : read-only
               --help
               @sub volume/create : changes
               @use docker-24
               --availability=X
               --group=X
               --limit-bytes=X
               --required-bytes=X
               --secret=X
               --sharing=X
               --topology-preferred=X
               --topology-required=X
               --type=X
               @sub volume/inspect : read-only
               -f X, --format=X
               --help
               @sub volume/ls, volume/list : read-only
               --cluster
               -f X, --filter=X
               --format=X
               -q, --quiet
               --help
               @sub volume/prune : dangerous removes data volumes
               -a, --all
               --filter=X
               -f, --force
               --help
               @sub volume/rm, volume/remove : dangerous removes data volumes
               -f, --force
               --help
               @sub volume/update : changes
               --availability=X
               --help
               @sub config : read-only
               --help
               @sub config/create : changes
               -l X, --label=X
               --template-driver=X
               --help
               @sub config/inspect : read-only
               -f X, --format=X
               --pretty
               --help
               @sub config/ls, config/list : read-only
               -f X, --filter=X
               --format=X
               -q, --quiet
               --help
               @sub config/rm, config/remove : changes
               --help
               @sub node : read-only
               --help
               @sub node/demote : changes
               --help
               @sub node/inspect : read-only
               -f X, --format=X
               --pretty
               --help
               @sub node/ls, node/list : read-only
               -f X, --filter=X
               --format=X
               -q, --quiet
               --help
               @sub node/promote : changes
               --help
               @sub node/ps : read-only
               @use docker-18
               @sub node/rm, node/remove : changes
               -f, --force
               --help
               @sub node/update : changes
               --availability=X
               --label-add=X
               --label-rm=X
               --role=X
               --help
               @sub secret : read-only
               --help
               @sub secret/create : changes
               -d X, --driver=X
               -l X, --label=X
               --template-driver=X
               --help
               @sub secret/inspect : read-only
               -f X, --format=X
               --pretty
               --help
               @sub secret/ls, secret/list : read-only
               -f X, --filter=X
               --format=X
               -q, --quiet
               --help
               @sub secret/rm, secret/remove : changes
               --help
               @sub service : read-only
               --help
               @sub service/create : changes
               @use docker-3
               @use docker-9
               --config=X
               --constraint=X
               --container-label=X
               --generic-resource=X
               --group=X
               --host=X
               --mode=X
               --network=X
               --placement-pref=X
               --secret=X
               --ulimit=X
               @sub service/inspect : read-only
               -f X, --format=X
               --pretty
               --help
               @sub service/logs : read-only
               @use docker-19
               --no-resolve
               --no-task-ids
               --no-trunc
               --raw
               @sub service/ls, service/list : read-only
               -f X, --filter=X
               --format=X
               -q, --quiet
               --help
               @sub service/ps : read-only
               @use docker-18
               @sub service/rm, service/remove : changes
               --help
               @sub service/rollback : changes
               -d, --detach
               -q, --quiet
               --help
               @sub service/scale : changes
               -d, --detach
               --help
               @sub service/update : changes
               @use docker-3
               --args=X
               --config-add=X
               --config-rm=X
               --constraint-add=X
               --constraint-rm=X
               --container-label-add=X
               --container-label-rm=X
               --dns-add=X
               --dns-option-add=X
               --dns-option-rm=X
               --dns-rm=X
               --dns-search-add=X
               --dns-search-rm=X
               --env-add=X
               --env-rm=X
               --force
               --generic-resource-add=X
               --generic-resource-rm=X
               --group-add=X
               --group-rm=X
               --host-add=X
               --host-rm=X
               --image=X
               --label-add=X
               --label-rm=X
               --mount-add=X
               --mount-rm=X
               --network-add=X
               --network-rm=X
               --placement-pref-add=X
               --placement-pref-rm=X
               --publish-add=X
               --publish-rm=X
               --rollback
               --secret-add=X
               --secret-rm=X
               --sysctl-add=X
               --sysctl-rm=X
               --ulimit-add=X
               --ulimit-rm=X
               @sub stack : read-only
               --help
               @sub stack/config : changes
               -c X, --compose-file=X
               --skip-interpolation
               --help
               @sub stack/deploy, stack/up : changes
               -c X, --compose-file=X
               -d, --detach
               --prune
               -q, --quiet
               --resolve-image=X
               --with-registry-auth
               --help
               @sub stack/ls, stack/list : read-only
               --format=X
               --help
               @sub stack/ps : read-only
               @use docker-18
               @sub stack/rm, stack/remove, stack/down : changes
               -d, --detach
               --help
               @sub stack/services : read-only
               -f X, --filter=X
               --format=X
               -q, --quiet
               --help
               @sub swarm : read-only
               --help
               @sub swarm/ca : changes
               --ca-cert=X
               --ca-key=X
               --cert-expiry=X
               -d, --detach
               --external-ca=X
               -q, --quiet
               --rotate
               --help
               @sub swarm/init : changes
               @use docker-12
               --advertise-addr=X
               --availability=X
               --data-path-addr=X
               --data-path-port=X
               --default-addr-pool=X
               --default-addr-pool-mask-length=X
               --force-new-cluster
               --listen-addr=X
               @sub swarm/join : changes
               --advertise-addr=X
               --availability=X
               --data-path-addr=X
               --listen-addr=X
               --token=X
               --help
               @sub swarm/join-token : changes
               -q, --quiet
               --rotate
               --help
               @sub swarm/leave : changes
               -f, --force
               --help
               @sub swarm/unlock : changes
               --help
               @sub swarm/unlock-key : changes
               -q, --quiet
               --rotate
               --help
               @sub swarm/update : changes
               @use docker-12
               @sub attach : changes
               --detach-keys=X
               --no-stdin
               --sig-proxy
               --help
               @sub commit : changes
               @use docker-22
               @sub cp : changes
               -a, --archive
               -L, --follow-link
               -q, --quiet
               --help
               @sub create : changes
               @posix
               @use docker-2
               @sub diff : read-only
               --help
               @sub events : read-only
               @use docker-26
               @sub export : changes
               -o X, --output=X : writes
               --help
               @sub history : read-only
               @use docker-17
               @sub import : changes
               -c X, --change=X
               -m X, --message=X
               --platform=X
               --help
               @sub inspect : read-only
               -f X, --format=X
               -s, --size
               --type=X
               --help
               @sub kill : changes
               -s X, --signal=X
               --help
               @sub load : changes
               -i X, --input=X : reads
               --platform=X
               -q, --quiet
               --help
               @sub logs : read-only
               @use docker-13
               @sub pause : changes
               --help
               @sub port : read-only
               --help
               @sub rename : changes
               --help
               @sub restart : changes
               -s X, --signal=X
               -t X, --timeout=X
               --help
               @sub rm : changes
               -f, --force
               -l, --link
               -v, --volumes
               --help
               @sub rmi : changes
               -f, --force
               --no-prune
               --platform=X
               --help
               @sub save : changes
               -o X, --output=X : writes
               --platform=X
               --help
               @sub start : changes
               @use docker-16
               @sub stats : read-only
               @use docker-23
               @sub stop : changes
               -s X, --signal=X
               -t X, --timeout=X
               --help
               @sub tag : changes
               --help
               @sub top : read-only
               --help
               @sub unpause : changes
               --help
               @sub update : changes
               @use docker-7
               @sub wait : read-only
               --help
               \n",
            include_str!("compose.spec")
        ),
        hook: Some(docker_spec),
    },
    Spec {
        // Compose v1, the standalone program: `docker compose` by the same spec. An option only
        // v1 had (`--skip-hostname-check`) is unknown, and asks.
        names: &["docker-compose"],
        family: "containers",
        text: concat!(include_str!("compose.spec"), "\n@root compose\n"),
        hook: Some(docker_compose),
    },
    Spec {
        names: &["podman"],
        family: "containers",
        text: include_str!("podman.spec"),
        hook: Some(docker_like),
    },
    Spec {
        names: &["nerdctl"],
        family: "containers",
        text: include_str!("nerdctl.spec"),
        hook: Some(docker_like),
    },
    Spec {
        names: &["kubectl"],
        family: "containers",
        text: include_str!("kubectl.spec"),
        hook: Some(kubectl_spec),
    },
    Spec {
        names: &["oc"],
        family: "containers",
        text: include_str!("oc.spec"),
        hook: Some(oc_spec),
    },
    Spec {
        names: &["helm"],
        family: "containers",
        text: include_str!("helm.spec"),
        hook: None,
    },
];

/// docker, read with its complete spec: what runs in the container, host mounts and powers
/// given to it, files copied to this host, compose's exec and run.
fn docker_spec(call: &Call<'_>, verdict: &mut Verdict) {
    let shown = match call.sub_words.first() {
        Some(&"compose") => format!("{} compose", call.name),
        _ => call.name.to_owned(),
    };
    docker_verbs(call, &call.sub_words, &shown, verdict);
}

/// docker-compose, `docker compose` by another name: the same reading of exec, run and cp.
fn docker_compose(call: &Call<'_>, verdict: &mut Verdict) {
    let mut path = vec!["compose"];
    path.extend(call.sub_words.iter().copied());
    docker_verbs(call, &path, call.name, verdict);
}

/// [`docker_spec`] for a subcommand path (`compose run`), `shown` naming the program in reasons.
fn docker_verbs(call: &Call<'_>, path: &[&str], shown: &str, verdict: &mut Verdict) {
    let verb = match path {
        ["container", verb, ..] => *verb,
        ["compose", verb @ ("exec" | "run" | "cp"), ..] => *verb,
        [verb, ..] => *verb,
        [] => return,
    };
    let how = format!("{shown} {verb}");
    match verb {
        "run" | "create" | "exec" => {
            for found in &call.options {
                docker_option(
                    &how,
                    found.def.display(),
                    found.value.as_deref().unwrap_or_default(),
                    verdict,
                );
            }
            // exec: CONTAINER CMD…; run/create: IMAGE [CMD…]; compose: SERVICE [CMD…].
            if let Some(first) = call.operands.first() {
                in_container(call.args, *first, &how, verdict);
            }
        }
        "cp" => {
            copies_here(&call.operand_texts(), &how, verdict);
        }
        _ => {}
    }
}

/// podman and nerdctl, read with their complete specs: docker's reading of run, create, exec
/// and cp; host folders and powers given through any other subcommand (`build -v`, `pod create
/// --device`); the command `machine ssh` runs in the virtual machine; the API served on a
/// network address. (`podman unshare CMD` is a wrapper by its spec.)
fn docker_like(call: &Call<'_>, verdict: &mut Verdict) {
    docker_spec(call, verdict);
    let path: Vec<&str> = call.sub_words.clone();
    let how = format!("{} {}", call.name, path.join(" "));
    let docker_read = matches!(
        path.as_slice(),
        ["run" | "create" | "exec"]
            | ["container", "run" | "create" | "exec"]
            | ["compose", "run" | "exec"]
    );
    if !docker_read {
        for found in &call.options {
            let value = found.value.as_deref().unwrap_or_default();
            docker_option(&how, found.def.display(), value, verdict);
            // `build -o type=local,dest=DIR` writes into DIR.
            if found.def.has("--output")
                && let Some(dest) = value.split(',').find_map(|part| part.strip_prefix("dest="))
            {
                verdict.output(dest, &how, true);
            }
        }
    }
    let operands = call.operand_texts();
    match path.as_slice() {
        ["system", "service"] if operands.iter().any(|address| address.starts_with("tcp:")) => {
            verdict.dangerous(
                &call.display(),
                "serves the Podman API on a network address, without authentication: whoever reaches it controls the host",
            );
        }
        ["machine", "ssh"] => match call.operands.as_slice() {
            [] => {}
            [_] => verdict.unprovable(format!(
                "`{how} {}`: a machine's name or a command to run in it, which cannot be told",
                operands.join(" ")
            )),
            [_, command, ..] => {
                verdict.args(*command, call.args.len(), format!("{how} (in the machine)"));
            }
        },
        _ => {}
    }
}

/// kubectl, read with its complete spec: what runs in pods (`exec`, `run`, `debug` after `--`) and
/// files copied to this host; its subcommands' classes say what reads, changes or deletes.
fn kubectl_spec(call: &Call<'_>, verdict: &mut Verdict) {
    kubectl(call.name, call.args, verdict);
}

/// oc, read with its complete spec: kubectl's reading, the command `oc rsh POD CMD…` runs in the
/// pod, and files `oc rsync` copies to this host.
fn oc_spec(call: &Call<'_>, verdict: &mut Verdict) {
    kubectl(call.name, call.args, verdict);
    let how = format!("oc {}", call.sub_words.join(" "));
    match call.sub_words.as_slice() {
        ["rsh"] => {
            if let [_, command, ..] = call.operands.as_slice() {
                verdict.args(*command, call.args.len(), format!("{how} (in the pod)"));
            }
        }
        ["rsync"] => {
            copies_here(&call.operand_texts(), &how, verdict);
        }
        _ => {}
    }
}

/// Host folders whose bind mount gives a container the host (or a lock-out file).
fn risky_host_path(path: &str) -> bool {
    let path = normalise_path(path, None);
    if !path.starts_with('/') && !path.starts_with('~') {
        return false; // a named volume
    }
    let system = [
        "/",
        "/etc",
        "/root",
        "/home",
        "/boot",
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/proc",
        "/sys",
        "/dev",
        "/run",
        "/var/run",
        "/var/lib",
        "/var/spool",
    ];
    system.contains(&path.as_str())
        || path.contains("docker.sock")
        || path.contains("containerd.sock")
        || path.starts_with("/etc/")
        || path.starts_with("/boot/")
        || path.starts_with("/usr/")
        || path.starts_with("/bin/")
        || path.starts_with("/sbin/")
        || path.starts_with("/lib")
        || path.starts_with("/root/")
        || path.starts_with("/proc/")
        || path.starts_with("/sys/")
        || path.starts_with("/dev/")
        || path == "~"
        || lockout_match(&path, true).is_some()
}

fn docker_option(how: &str, option: &str, value: &str, fx: &mut Verdict) {
    match option {
        "-v" | "--volume" => {
            let source = value.split(':').next().unwrap_or_default();
            if source.contains('$') || source.contains('`') {
                fx.unprovable(format!(
                    "`{how} -v {value}` mounts a host folder only known when it runs"
                ));
            } else if risky_host_path(source) {
                fx.unprovable(format!(
                    "`{how} -v {value}` mounts the host's {source} into the container, where anything running can change it"
                ));
            }
        }
        "--mount" => {
            let source = value.split(',').find_map(|part| {
                part.strip_prefix("source=")
                    .or_else(|| part.strip_prefix("src="))
            });
            if let Some(source) = source
                && (risky_host_path(source) || source.contains('$'))
            {
                fx.unprovable(format!(
                    "`{how} --mount {value}` mounts the host's {source} into the container"
                ));
            }
        }
        "--privileged" => fx.unprovable(format!(
            "`{how} --privileged` gives the container the whole host"
        )),
        "--pid" | "--ipc" | "--uts" | "--userns" | "--cgroupns" | "--network" | "--net"
            if value == "host" && option != "--network" && option != "--net" =>
        {
            fx.unprovable(format!(
                "`{how} {option}=host` shares the host's {option} namespace with the container"
            ));
        }
        "--cap-add" | "--device" => fx.unprovable(format!(
            "`{how} {option} {value}` gives the container host powers"
        )),
        "--security-opt" if value.contains("unconfined") || value.contains("disable") => {
            fx.unprovable(format!(
                "`{how} --security-opt {value}` turns off the container's confinement"
            ));
        }
        "--entrypoint" => fx.script(value, format!("{how} --entrypoint"), None, true),
        _ => {}
    }
}

/// The command after the container or image at `position` runs in the container.
fn in_container(args: &[String], position: usize, how: &str, fx: &mut Verdict) {
    if args.get(position).is_some() {
        fx.args(
            position + 1,
            args.len(),
            format!("{how} (in the container)"),
        );
    }
}

/// kubectl/oc: commands run in pods (`exec`, `run`, `debug` after `--`), and `cp` to this host.
fn kubectl(name: &str, args: &[String], fx: &mut Verdict) {
    let Some(subcommand) = args.iter().find(|arg| {
        matches!(
            arg.as_str(),
            "exec" | "run" | "debug" | "cp" | "attach" | "plugin" | "proxy"
        )
    }) else {
        return;
    };
    let how = format!("{name} {subcommand}");
    let separator = args.iter().position(|arg| arg == "--");
    match subcommand.as_str() {
        "exec" | "run" | "debug" => match separator {
            Some(position) => fx.args(position + 1, args.len(), format!("{how} (in the pod)")),
            None if subcommand == "exec" => fx.unprovable(format!(
                "`{how}` without `--`: which words are the command run in the pod cannot be told"
            )),
            None => {}
        },
        "cp" => {
            let positional: Vec<&str> = args
                .iter()
                .map(String::as_str)
                .filter(|a| !a.starts_with('-'))
                .skip(1)
                .collect();
            copies_here(&positional, &how, fx);
        }
        "proxy" => {
            // The proxy forwards with the user's own credentials: on an address other hosts can
            // reach, anyone there has the user's access to the cluster.
            let address = args.iter().enumerate().find_map(|(index, arg)| {
                arg.strip_prefix("--address=")
                    .map(str::to_owned)
                    .or_else(|| {
                        (arg == "--address")
                            .then(|| args.get(index + 1).cloned())
                            .flatten()
                    })
            });
            if let Some(address) = address
                && !matches!(address.as_str(), "127.0.0.1" | "localhost" | "::1")
            {
                fx.dangerous(
                    &format!("{name} proxy --address {address}"),
                    "serves the cluster's API with your credentials to whoever can reach that address",
                );
            }
        }
        _ => {}
    }
}

/// `docker cp`/`kubectl cp SRC… DEST`: a destination on this host (no `CONTAINER:`) is written.
fn copies_here(positional: &[&str], how: &str, fx: &mut Verdict) {
    if let Some(destination) = positional.last()
        && positional.len() >= 2
        && !destination.contains(':')
    {
        fx.output(destination, how, true);
    }
}
