#!/usr/bin/env bash
# Throwaway wallet keys for the browser tests' mail server: a root CA, an
# Apple WWDR stand-in under it and a pass certificate under that, and an
# RSA key for Google's service account, made with openssl in folder $1.
# Nothing here is Apple's or Google's: passes signed with these open in no
# wallet, but their files are whole and their signatures verify.
set -euo pipefail
dir="$1"
mkdir -p "$dir" && cd "$dir"
q() { openssl "$@" >/dev/null 2>&1; }
q req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 30 \
  -subj "/CN=Test Root CA/O=Seatmap Test" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
printf 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' >wwdr.ext
q req -newkey rsa:2048 -nodes -keyout wwdr.key -out wwdr.csr -subj "/CN=Test WWDR Intermediate/OU=G4/O=Seatmap Test"
q x509 -req -in wwdr.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out wwdr.pem -days 30 -extfile wwdr.ext
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' >pass.ext
q req -newkey rsa:2048 -nodes -keyout pass.key -out pass.csr \
  -subj "/UID=pass.com.example.tickets/CN=Pass Type ID: pass.com.example.tickets/OU=ABCDE12345/O=Seatmap Test"
q x509 -req -in pass.csr -CA wwdr.pem -CAkey wwdr.key -CAcreateserial -out pass.pem -days 30 -extfile pass.ext
q genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out google.key
python3 -c 'import json,sys; print(json.dumps({"type": "service_account", "client_email": "wallet@seatmap-e2e.iam.gserviceaccount.com", "private_key": open("google.key").read()}))' >google.json
