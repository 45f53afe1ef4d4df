#!/bin/sh
# certs.sh DIR [SERVER_NAME] [EXTRA_SANS]
#
# Makes the certificates of a Temporal cluster that requires mutual TLS,
# once: an existing DIR/ca.pem is kept (re-running adds only what is
# missing), since every client certificate hangs off it.
#
#   ca.pem, ca.key          the cluster's own CA (keep ca.key offline in production)
#   server.pem, server.key  every Temporal node: frontend and internode, server
#                           and client side (internode calls present it too)
#   worker.pem/.key         berth worker        } client certificates; any
#   gateway.pem/.key        berth gateway       } certificate this CA signed
#   admin.pem/.key          temporal CLI, the UI} may call Temporal
#
# SERVER_NAME (default "temporal") is the name clients check
# (TEMPORAL_TLS_SERVER_NAME); EXTRA_SANS adds names and addresses, e.g.
# "DNS:temporal.internal,IP:10.0.0.5". Loopback 127.0.0.1-4 and localhost
# are always in, for the one-machine cluster.
set -eu
dir=${1:?usage: certs.sh DIR [SERVER_NAME] [EXTRA_SANS]}
name=${2:-temporal}
extra=${3:-}
days=${CERT_DAYS:-825}
mkdir -p "$dir"
chmod 750 "$dir"
cd "$dir"
umask 077

if [ ! -f ca.pem ]; then
	openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
		-keyout ca.key -out ca.pem -days 3650 -subj "/O=Berth/CN=Berth Temporal CA" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
fi

# leaf NAME CN EKU SANS: a key and a certificate signed by the CA.
leaf() {
	[ -f "$1.pem" ] && return 0
	ext=$(mktemp)
	{
		echo "basicConstraints=critical,CA:FALSE"
		echo "keyUsage=critical,digitalSignature,keyEncipherment"
		echo "extendedKeyUsage=$3"
		[ -n "$4" ] && echo "subjectAltName=$4"
	} >"$ext"
	openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
		-keyout "$1.key" -out "$1.csr" -subj "/O=Berth/CN=$2" 2>/dev/null
	openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
		-days "$days" -extfile "$ext" -out "$1.pem" 2>/dev/null
	rm -f "$1.csr" "$ext"
}

sans="DNS:$name,DNS:localhost,IP:127.0.0.1,IP:127.0.0.2,IP:127.0.0.3,IP:127.0.0.4"
[ -n "$extra" ] && sans="$sans,$extra"
leaf server "$name" serverAuth,clientAuth "$sans"
for c in worker gateway admin; do
	leaf "$c" "berth-$c" clientAuth ""
done
# Readable by the group the servers run as (see README); keys stay 0600/0640.
chmod 644 ./*.pem
chmod 640 ./*.key
chmod 600 ca.key
echo "certificates in $(pwd): CA ca.pem; server name $name"
