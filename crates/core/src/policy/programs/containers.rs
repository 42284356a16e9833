//! Containers and clusters: docker, podman, nerdctl, kubectl, oc, helm.
//!
//! What runs in a container or pod (`docker exec CTR cmd`, `docker run IMG cmd`, `kubectl exec POD
//! -- cmd`) is analysed as if typed; options that give a container the host (`--privileged`, a bind
//! mount of `/` or a lock-out path, `--pid=host`, `--cap-add`) ask; `docker cp`/`kubectl cp` to this
//! host write. Dangerous: `docker system prune`, `docker volume rm/prune`, `kubectl delete`,
//! `helm uninstall`.
//!
//! docker and kubectl list every subcommand and option (from their own help). Still `@loose`, as
//! none of them could be read here: `docker compose` (a plugin Debian does not ship), podman
//! (Debian's package was not installed to generate its docker-sized table), nerdctl, oc and helm
//! (not packaged by Debian). For them an option they do not list is not a reason to ask, except
//! in `run/create/exec`, where an unknown option would hide which word is the image.

use super::super::paths::{lockout_match, normalise_path};
use super::args::Call;
use super::common::{has_any, positional};
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
               --cgroupns=X
               --cidfile=X : writes
               --cpu-count=X
               --cpu-percent=X
               --device=X
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
               --ipc=X
               --kernel-memory=X
               --label-file=X : reads
               --link=X
               --link-local-ip=X
               --mac-address=X
               --memory-swappiness=X
               --network-alias=X
               --oom-kill-disable
               --pid=X
               --privileged
               -P, --publish-all
               --pull=X
               --runtime=X
               --stop-timeout=X
               --storage-opt=X
               --tmpfs=X
               --use-api-socket
               --userns=X
               --uts=X
               -v X, --volume=X
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
               --cap-add=X
               --cap-drop=X
               --entrypoint=X
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
               --security-opt=X
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
               --privileged
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
               --mount=X
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
        text: "@anywhere
               @operands args
               --as=X : harmless
               --as-group=X
               --as-uid=X
               --cache-dir=X : harmless
               --certificate-authority=X
               --client-certificate=X
               --client-key=X
               --cluster=X
               --context=X
               --disable-compression
               --insecure-skip-tls-verify
               --kubeconfig=X : unprovable reads a kubeconfig, which can name programs to run (exec credentials)
               --log-flush-frequency=X
               --match-server-version
               -n X, --namespace=X
               --password=X
               --profile=X
               --profile-output=X
               --request-timeout=X
               -s X, --server=X
               --tls-server-name=X
               --token=X : harmless
               --user=X
               --username=X
               -v X, --v=X
               --vmodule=X
               --warnings-as-errors
               -h, --help
               @block kubectl-1
               @use kubectl-4
               -A, --all-namespaces
               --field-selector=X
               --resource-version=X
               @end
               @block kubectl-2
               @use kubectl-11
               --allow-missing-template-keys
               --field-manager=X
               --show-managed-fields
               --subresource=X
               --template=X : harmless
               --validate=X
               @end
               @block kubectl-3
               @use kubectl-12
               -l X, --labels=X
               --override-type=X
               --overrides=X
               --port=X
               @end
               @block kubectl-4
               @use kubectl-6
               --list
               --overwrite
               @end
               @block kubectl-5
               @use kubectl-19
               --clusterrole=X
               --group=X
               --serviceaccount=X
               --user=X
               @end
               @block kubectl-6
               @use kubectl-9
               -l X, --selector=X
               @end
               @block kubectl-7
               @use kubectl-13
               --save-config
               @end
               @block kubectl-8
               @use kubectl-19
               --resource=X
               --resource-name=X
               --verb=X
               @end
               @block kubectl-9
               @use kubectl-10
               -k X, --kustomize=X : reads
               @end
               @block kubectl-10
               @use kubectl-18
               --all
               @end
               @block kubectl-11
               @use kubectl-29
               --dry-run=X
               -f X, --filename=X : reads
               -k X, --kustomize=X : reads
               -o X, --output=X : harmless
               -R, --recursive
               @end
               @block kubectl-12
               @use kubectl-22
               --field-manager=X
               --save-config
               @end
               @block kubectl-13
               @use kubectl-25
               -k X, --kustomize=X : reads
               --validate=X
               --windows-line-endings
               @end
               @block kubectl-14
               @use kubectl-19
               --image=X
               @end
               @block kubectl-15
               @use kubectl-26
               -A, --all-namespaces
               --field-selector=X
               @end
               @block kubectl-16
               @use kubectl-20
               --field-manager=X
               @end
               @block kubectl-17
               @use kubectl-20
               --dry-run=X
               @end
               @block kubectl-18
               @use kubectl-25
               --dry-run=X
               --local
               @end
               @block kubectl-19
               @use kubectl-24
               --save-config
               @end
               @block kubectl-20
               @use kubectl-26
               -k X, --kustomize=X : reads
               @end
               @block kubectl-21
               @use kubectl-27
               --force
               @end
               @block kubectl-22
               @use kubectl-27
               --dry-run=X
               @end
               @block kubectl-23
               --attach
               --env=X
               --image=X
               --image-pull-policy=X
               -q, --quiet
               -i, --stdin
               -t, --tty
               @end
               @block kubectl-24
               @use kubectl-33
               --field-manager=X
               --validate=X
               @end
               @block kubectl-25
               @use kubectl-28
               --field-manager=X
               @end
               @block kubectl-26
               @use kubectl-28
               -l X, --selector=X
               @end
               @block kubectl-27
               @use kubectl-28
               -k X, --kustomize=X : reads
               @end
               @block kubectl-28
               --allow-missing-template-keys
               -f X, --filename=X : reads
               -o X, --output=X : harmless
               -R, --recursive
               --show-managed-fields
               --template=X : harmless
               @end
               @block kubectl-29
               --cascade=X
               --force
               --grace-period=X
               --timeout=X
               --wait
               @end
               @block kubectl-30
               -A, --all-namespaces
               --allow-missing-template-keys
               -o X, --output=X : harmless
               --show-managed-fields
               --template=X : harmless
               @end
               @block kubectl-31
               -c X, --container=X
               --pod-running-timeout=X
               -q, --quiet
               -i, --stdin
               -t, --tty
               @end
               @block kubectl-32
               --force-conflicts
               --prune
               --prune-allowlist=X
               -l X, --selector=X
               --server-side
               @end
               @block kubectl-33
               --allow-missing-template-keys
               --dry-run=X
               -o X, --output=X : harmless
               --show-managed-fields
               --template=X : harmless
               @end
               @sub create : changes
               @use kubectl-7
               --dry-run=X
               --edit
               --raw=X
               -l X, --selector=X
               @sub create/clusterrole : changes
               @use kubectl-8
               --aggregation-rule=X
               --non-resource-url=X
               @sub create/clusterrolebinding : changes
               @use kubectl-5
               @sub create/configmap : changes
               @use kubectl-19
               --append-hash
               --from-env-file=X
               --from-file=X
               --from-literal=X
               @sub create/cronjob : changes
               @use kubectl-14
               --restart=X
               --schedule=X
               @sub create/deployment : changes
               @use kubectl-14
               --port=X
               -r X, --replicas=X
               @sub create/ingress : changes
               @use kubectl-19
               --annotation=X
               --class=X
               --default-backend=X
               --rule=X
               @sub create/job : changes
               @use kubectl-14
               --from=X
               @sub create/namespace : changes
               @use kubectl-19
               @sub create/poddisruptionbudget : changes
               @use kubectl-19
               --max-unavailable=X
               --min-available=X
               --selector=X
               @sub create/priorityclass : changes
               @use kubectl-19
               --description=X
               --global-default
               --preemption-policy=X
               --value=X
               @sub create/quota : changes
               @use kubectl-19
               --hard=X
               --scopes=X
               @sub create/role : changes
               @use kubectl-8
               @sub create/rolebinding : changes
               @use kubectl-5
               --role=X
               @sub create/secret : changes
               @sub create/service : changes
               @sub create/serviceaccount : changes
               @use kubectl-19
               @sub create/token : changes
               --allow-missing-template-keys
               --audience=X
               --bound-object-kind=X
               --bound-object-name=X
               --bound-object-uid=X
               --duration=X
               -o X, --output=X : harmless
               --show-managed-fields
               --template=X : harmless
               @sub expose : changes
               @use kubectl-3
               --cluster-ip=X
               --external-ip=X
               --load-balancer-ip=X
               --name=X
               --protocol=X
               --selector=X
               --session-affinity=X
               --target-port=X
               --type=X
               @sub run : changes
               @use kubectl-3
               @use kubectl-23
               @use kubectl-29
               --annotations=X
               --command
               --expose
               --leave-stdin-open
               --pod-running-timeout=X
               --privileged
               --restart=X
               --rm
               @sub set : changes
               @sub set/env : changes
               @use kubectl-4
               -c X, --containers=X
               -e X, --env=X
               --from=X
               --keys=X
               --prefix=X
               --resolve
               @sub set/image : changes
               @use kubectl-6
               @sub set/resources : changes
               @use kubectl-6
               -c X, --containers=X
               --limits=X
               --requests=X
               @sub set/selector : changes
               @use kubectl-10
               --resource-version=X
               @sub set/serviceaccount : changes
               @use kubectl-9
               @sub set/subject : changes
               @use kubectl-6
               --group=X
               --serviceaccount=X
               --user=X
               @sub explain : read-only
               --api-version=X
               -o X, --output=X : harmless
               --recursive
               @sub get : read-only
               @use kubectl-15
               --chunk-size=X
               --ignore-not-found
               -k X, --kustomize=X : reads
               -L X, --label-columns=X
               --no-headers
               --output-watch-events
               --raw=X
               --server-print
               --show-kind
               --show-labels
               --sort-by=X
               --subresource=X
               -w, --watch
               --watch-only
               @sub edit : changes
               @use kubectl-7
               --output-patch
               --subresource=X
               @sub delete : dangerous deletes Kubernetes resources
               @use kubectl-11
               --all
               -A, --all-namespaces
               --field-selector=X
               --ignore-not-found
               -i, --interactive
               --now
               --raw=X
               -l X, --selector=X
               @sub rollout : changes
               @sub rollout/history : read-only
               @use kubectl-20
               --revision=X
               @sub rollout/pause : changes
               @use kubectl-16
               @sub rollout/restart : changes
               @use kubectl-16
               @sub rollout/resume : changes
               @use kubectl-16
               @sub rollout/status : read-only
               -f X, --filename=X : reads
               -k X, --kustomize=X : reads
               -R, --recursive
               --revision=X
               -l X, --selector=X
               --timeout=X
               -w, --watch
               @sub rollout/undo : changes
               @use kubectl-17
               --to-revision=X
               @sub scale : changes
               @use kubectl-17
               --all
               --current-replicas=X
               --replicas=X
               --resource-version=X
               --timeout=X
               @sub autoscale : changes
               @use kubectl-12
               --cpu-percent=X
               --max=X
               --min=X
               --name=X
               @sub certificate : changes
               @sub certificate/approve : changes
               @use kubectl-21
               @sub certificate/deny : changes
               @use kubectl-21
               @sub cluster-info : read-only
               @sub cluster-info/dump : read-only
               @use kubectl-30
               --namespaces=X
               --output-directory=X
               --pod-running-timeout=X
               @sub top : read-only
               @sub top/node : read-only
               --no-headers
               -l X, --selector=X
               --show-capacity
               --sort-by=X
               --use-protocol-buffers
               @sub top/pod : read-only
               -A, --all-namespaces
               --containers
               --field-selector=X
               --no-headers
               -l X, --selector=X
               --sort-by=X
               --sum
               --use-protocol-buffers
               @sub cordon : changes
               --dry-run=X
               -l X, --selector=X
               @sub uncordon : changes
               --dry-run=X
               -l X, --selector=X
               @sub drain : changes evicts every pod from a node
               --chunk-size=X
               --delete-emptydir-data
               --disable-eviction
               --dry-run=X
               --force
               --grace-period=X
               --ignore-daemonsets
               --pod-selector=X
               -l X, --selector=X
               --skip-wait-for-delete-timeout=X
               --timeout=X
               @sub taint : changes
               @use kubectl-24
               --all
               --overwrite
               -l X, --selector=X
               @sub describe : read-only
               -A, --all-namespaces
               --chunk-size=X
               -f X, --filename=X : reads
               -k X, --kustomize=X : reads
               -R, --recursive
               -l X, --selector=X
               --show-events
               @sub logs : read-only
               --all-containers
               --all-pods
               -c X, --container=X
               -f, --follow
               --ignore-errors
               --insecure-skip-tls-verify-backend
               --limit-bytes=X
               --max-log-requests=X
               --pod-running-timeout=X
               --prefix
               -p, --previous
               -l X, --selector=X
               --since=X
               --since-time=X
               --tail=X
               --timestamps
               @sub attach : changes
               @use kubectl-31
               @sub exec : changes
               @use kubectl-31
               -f X, --filename=X : reads
               @sub port-forward : network forwards local ports into the cluster
               --address=X
               --pod-running-timeout=X
               @sub proxy : network opens a proxy to the cluster's API
               --accept-hosts=X
               --accept-paths=X
               --address=X
               --api-prefix=X
               --append-server-path
               --disable-filter
               --keepalive=X
               -p X, --port=X
               --reject-methods=X
               --reject-paths=X
               -u X, --unix-socket=X
               -w X, --www=X
               -P X, --www-prefix=X
               @sub cp : changes
               -c X, --container=X
               --no-preserve
               --retries=X
               @sub auth : read-only
               @sub auth/can-i : read-only
               -A, --all-namespaces
               --list
               --no-headers
               -q, --quiet
               --subresource=X
               @sub auth/reconcile : changes
               @use kubectl-22
               --remove-extra-permissions
               --remove-extra-subjects
               @sub auth/whoami : read-only
               --allow-missing-template-keys
               -o X, --output=X : harmless
               --show-managed-fields
               --template=X : harmless
               @sub debug : changes
               @use kubectl-23
               --arguments-only
               -c X, --container=X
               --copy-to=X
               --custom=X
               -f X, --filename=X : reads
               --keep-annotations
               --keep-init-containers
               --keep-labels
               --keep-liveness
               --keep-readiness
               --keep-startup
               --profile=X
               --replace
               --same-node
               --set-image=X
               --share-processes
               --target=X
               @sub events : read-only
               @use kubectl-30
               --chunk-size=X
               --for=X
               --no-headers
               --types=X
               -w, --watch
               @sub diff : read-only
               @use kubectl-32
               --concurrency=X
               --field-manager=X
               -f X, --filename=X : reads
               -k X, --kustomize=X : reads
               -R, --recursive
               --show-managed-fields
               @sub apply : changes
               @use kubectl-2
               @use kubectl-32
               --all
               --openapi-patch
               --overwrite
               @sub apply/edit-last-applied : changes
               @use kubectl-13
               @sub apply/set-last-applied : changes
               @use kubectl-33
               --create-annotation
               -f X, --filename=X : reads
               @sub apply/view-last-applied : changes
               --all
               -f X, --filename=X : reads
               -k X, --kustomize=X : reads
               -o X, --output=X : harmless
               -R, --recursive
               -l X, --selector=X
               @sub patch : changes
               @use kubectl-18
               -k X, --kustomize=X : reads
               -p X, --patch=X
               --patch-file=X
               --subresource=X
               --type=X
               @sub replace : changes
               @use kubectl-2
               --raw=X
               --save-config
               @sub wait : read-only
               @use kubectl-15
               --all
               --for=X
               --local
               --timeout=X
               @sub kustomize : read-only
               --as-current-user
               --enable-alpha-plugins
               --enable-helm
               -e X, --env=X
               --helm-api-versions=X
               --helm-command=X
               --helm-debug
               --helm-kube-version=X
               --load-restrictor=X
               --mount=X
               --network
               --network-name=X
               -o X, --output=X : harmless
               @sub label : changes
               @use kubectl-1
               @sub annotate : changes
               @use kubectl-1
               @sub completion : read-only
               @sub api-resources : read-only
               --api-group=X
               --cached
               --categories=X
               --namespaced
               --no-headers
               -o X, --output=X : harmless
               --sort-by=X
               --verbs=X
               @sub api-versions : read-only
               @sub config : read-only
               @sub config/current-context : read-only
               @sub config/delete-cluster : changes
               @sub config/delete-context : changes
               @sub config/delete-user : changes
               @sub config/get-clusters : read-only
               @sub config/get-contexts : read-only
               --no-headers
               -o X, --output=X : harmless
               @sub config/get-users : read-only
               @sub config/rename-context : changes
               @sub config/set : changes
               --set-raw-bytes
               @sub config/set-cluster : changes
               --certificate-authority=X
               --embed-certs
               --insecure-skip-tls-verify
               --proxy-url=X
               --server=X
               --tls-server-name=X
               @sub config/set-context : changes
               --cluster=X
               --current
               --namespace=X
               --user=X
               @sub config/set-credentials : changes
               --auth-provider=X
               --auth-provider-arg=X
               --client-certificate=X
               --client-key=X
               --embed-certs
               --exec-api-version=X
               --exec-arg=X
               --exec-command=X
               --exec-env=X
               --exec-interactive-mode=X
               --exec-provide-cluster-info
               --password=X
               --token=X : harmless
               --username=X
               @sub config/unset : changes
               @sub config/use-context : changes
               @sub config/view : read-only
               --allow-missing-template-keys
               --flatten
               --merge
               --minify
               -o X, --output=X : harmless
               --raw
               --show-managed-fields
               --template=X : harmless
               @sub plugin : read-only
               @sub plugin/list : read-only
               --name-only
               @sub version : read-only
               --client
               -o X, --output=X : harmless",
        hook: Some(kubectl_spec),
    },
    Spec {
        names: &["oc"],
        family: "containers",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(kubectl_hook),
    },
    Spec {
        names: &["helm"],
        family: "containers",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(helm),
    },
];

fn not_read_only(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.not_read_only(format!(
        "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
        call.display()
    ));
}

/// docker, read with its complete spec: what runs in the container, host mounts and powers
/// given to it, files copied to this host, compose's exec and run.
fn docker_spec(call: &Call<'_>, verdict: &mut Verdict) {
    let path: Vec<&str> = call.sub_words.clone();
    let verb = match path.as_slice() {
        ["container", verb, ..] => *verb,
        ["compose", verb @ ("exec" | "run" | "cp"), ..] => *verb,
        [verb, ..] => *verb,
        [] => return,
    };
    let how = match path.first() {
        Some(&"compose") => format!("{} compose {verb}", call.name),
        _ => format!("{} {verb}", call.name),
    };
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
            let operands = call.operand_texts();
            let positional: Vec<String> = operands.iter().map(|word| (*word).to_owned()).collect();
            let refs: Vec<&String> = positional.iter().collect();
            copies_here(&refs, &how, verdict);
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
        ["system", "service"] => {
            if operands.iter().any(|address| address.starts_with("tcp:")) {
                verdict.dangerous(
                    &call.display(),
                    "serves the Podman API on a network address, without authentication: whoever reaches it controls the host",
                );
            }
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

fn kubectl_hook(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    kubectl(call.name, args, verdict);
    let display = call.display();
    if has_any(args, &["delete"]) {
        verdict.dangerous(&display, "deletes Kubernetes resources");
    }
    let first = positional(args).first().copied().unwrap_or_default();
    let reads = matches!(
        first,
        "get"
            | "describe"
            | "logs"
            | "top"
            | "version"
            | "explain"
            | "api-resources"
            | "api-versions"
            | "cluster-info"
            | "events"
    ) || (first == "config"
        && has_any(args, &["view", "get-contexts", "current-context"]))
        || (first == "auth" && has_any(args, &["can-i"]));
    if !reads {
        not_read_only(call, verdict);
    }
}

fn helm(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    if has_any(args, &["uninstall", "delete"]) {
        verdict.dangerous(&call.display(), "uninstalls a Helm release");
    }
    let first = positional(args).first().copied().unwrap_or_default();
    if !matches!(
        first,
        "list" | "ls" | "status" | "history" | "get" | "show" | "search" | "version" | "env"
    ) {
        not_read_only(call, verdict);
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
            "exec" | "run" | "debug" | "cp" | "attach" | "plugin"
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
            let positional: Vec<&String> = args
                .iter()
                .filter(|a| !a.starts_with('-'))
                .skip(1)
                .collect();
            copies_here(&positional, &how, fx);
        }
        _ => {}
    }
}

/// `docker cp`/`kubectl cp SRC… DEST`: a destination on this host (no `CONTAINER:`) is written.
fn copies_here(positional: &[&String], how: &str, fx: &mut Verdict) {
    if let Some(destination) = positional.last()
        && positional.len() >= 2
        && !destination.contains(':')
    {
        fx.output(destination, how, true);
    }
}
