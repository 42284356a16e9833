//! Services admins run by hand: nginx, apachectl, sshd (their configuration tests read), certbot
//! (its `--*-hook` options run programs: asked), ansible (`-m shell -a CMD` runs CMD on every
//! host, analysed as typed), openssl (`-out` writes), tcpdump (`-w` writes, `-z` runs), gdb.

use super::super::paths::{lockout_match, normalise_path};
use super::args::Call;
use super::common::{has_any, has_short, is_access_service, is_ssh_package, positional};
use super::model::Runs;
use super::spec::Spec;
use super::verdict::Verdict;

/// openssl's commands and their options, from each command's `-help` (with the digest and cipher
/// names its `-*` options stand for; options several commands share are kept once, in blocks);
/// read-only where they only print.
const OPENSSL: &str = "@block openssl-digests
    -blake2b512, -blake2s256, -md4, -md5, -md5-sha1, -ripemd
    -ripemd160, -rmd160, -sha1, -sha224, -sha256, -sha3-224
    -sha3-256, -sha3-384, -sha3-512, -sha384, -sha512, -sha512-224
    -sha512-256, -shake128, -shake256, -sm3, -ssl3-md5, -ssl3-sha1
    -whirlpool
    @end
    @block openssl-ciphers
    -aes-128-cbc, -aes-128-cfb, -aes-128-cfb1, -aes-128-cfb8, -aes-128-ctr, -aes-128-ecb
    -aes-128-ofb, -aes-192-cbc, -aes-192-cfb, -aes-192-cfb1, -aes-192-cfb8, -aes-192-ctr
    -aes-192-ecb, -aes-192-ofb, -aes-256-cbc, -aes-256-cfb, -aes-256-cfb1, -aes-256-cfb8
    -aes-256-ctr, -aes-256-ecb, -aes-256-ofb, -aes128, -aes128-wrap, -aes192
    -aes192-wrap, -aes256, -aes256-wrap, -aria-128-cbc, -aria-128-cfb, -aria-128-cfb1
    -aria-128-cfb8, -aria-128-ctr, -aria-128-ecb, -aria-128-ofb, -aria-192-cbc, -aria-192-cfb
    -aria-192-cfb1, -aria-192-cfb8, -aria-192-ctr, -aria-192-ecb, -aria-192-ofb, -aria-256-cbc
    -aria-256-cfb, -aria-256-cfb1, -aria-256-cfb8, -aria-256-ctr, -aria-256-ecb, -aria-256-ofb
    -aria128, -aria192, -aria256, -bf, -bf-cbc, -bf-cfb
    -bf-ecb, -bf-ofb, -blowfish, -camellia-128-cbc, -camellia-128-cfb, -camellia-128-cfb1
    -camellia-128-cfb8, -camellia-128-ctr, -camellia-128-ecb, -camellia-128-ofb, -camellia-192-cbc, -camellia-192-cfb
    -camellia-192-cfb1, -camellia-192-cfb8, -camellia-192-ctr, -camellia-192-ecb, -camellia-192-ofb, -camellia-256-cbc
    -camellia-256-cfb, -camellia-256-cfb1, -camellia-256-cfb8, -camellia-256-ctr, -camellia-256-ecb, -camellia-256-ofb
    -camellia128, -camellia192, -camellia256, -cast, -cast-cbc, -cast5-cbc
    -cast5-cfb, -cast5-ecb, -cast5-ofb, -chacha20, -des, -des-cbc
    -des-cfb, -des-cfb1, -des-cfb8, -des-ecb, -des-ede, -des-ede-cbc
    -des-ede-cfb, -des-ede-ecb, -des-ede-ofb, -des-ede3, -des-ede3-cbc, -des-ede3-cfb
    -des-ede3-cfb1, -des-ede3-cfb8, -des-ede3-ecb, -des-ede3-ofb, -des-ofb, -des3
    -des3-wrap, -desx, -desx-cbc, -id-aes128-wrap, -id-aes128-wrap-pad, -id-aes192-wrap
    -id-aes192-wrap-pad, -id-aes256-wrap, -id-aes256-wrap-pad, -id-smime-alg-CMS3DESwrap, -rc2, -rc2-128
    -rc2-40, -rc2-40-cbc, -rc2-64, -rc2-64-cbc, -rc2-cbc, -rc2-cfb
    -rc2-ecb, -rc2-ofb, -rc4, -rc4-40, -seed, -seed-cbc
    -seed-cfb, -seed-ecb, -seed-ofb, -sm4, -sm4-cbc, -sm4-cfb
    -sm4-ctr, -sm4-ecb, -sm4-ofb
    @end
    @operands args
    @block openssl-dgst
    -help
    -list
    -engine X : unprovable loads code into openssl
    -engine_impl
    -passin X
    -c
    -r
    -out X : writes
    -keyform X
    -hex
    -binary
    -xoflen X
    -d
    -debug
    -sign X
    -verify X
    -prverify X
    -sigopt X
    -signature X : reads
    -hmac X
    -mac X
    -macopt X
    -fips-fingerprint
    -rand X
    -writerand X : writes
    -provider-path X : unprovable loads code into openssl
    -provider X : unprovable loads code into openssl
    -propquery X
    @use openssl-digests
    @end
    @block openssl-enc
    -help
    -list
    -ciphers
    -e
    -d
    -p
    -P
    -engine X : unprovable loads code into openssl
    -in X : reads
    -k X
    -kfile X : reads
    -out X : writes
    -pass X
    -v
    -a
    -base64
    -A
    -nopad
    -salt
    -nosalt
    -debug
    -bufsize X
    -K X
    -S X
    -iv X
    -md X
    -iter X
    -pbkdf2
    -none
    -rand X
    -writerand X : writes
    -provider-path X : unprovable loads code into openssl
    -provider X : unprovable loads code into openssl
    -propquery X
    @use openssl-ciphers
    @end
    @block openssl-1
    @use openssl-4
    @use openssl-23
    @use openssl-36
    -ssl_config X
    -port X
    -proxy X
    -unix X
    -4
    -6
    -max_send_frag X
    -split_send_frag X
    -max_pipelines X
    -read_buf X
    -cert_chain X : reads
    -build_chain
    -pass X
    -psk_identity X
    -psk X
    -psk_session X : reads
    -crlf
    -quiet
    -ign_eof
    -no_ign_eof
    -brief
    -debug
    -msg
    -msgfile X : writes
    -nbio_test
    -state
    -keymatexport X
    -keymatexportlen X
    -security_debug
    -security_debug_verbose
    -trace
    -keylogfile X : writes
    -servername X
    -tlsextdebug
    -ignore_unexpected_eof
    -status
    -serverinfo X
    -alpn X
    -async
    -nbio
    -dtls
    -timeout
    -mtu X
    -dtls1
    -dtls1_2
    -nextprotoneg X
    -use_srtp X
    -no_ssl3
    -no_tls1
    -no_tls1_1
    -no_tls1_2
    -no_tls1_3
    -no_comp
    -comp
    -no_ticket
    -serverpref
    -legacy_renegotiation
    -client_renegotiation
    -no_renegotiation
    -legacy_server_connect
    -no_resumption_on_reneg
    -no_legacy_server_connect
    -allow_no_dhe_kex
    -prioritize_chacha
    -strict
    -sigalgs X
    -client_sigalgs X
    -groups X
    -curves X
    -named_curve X
    -min_protocol X
    -max_protocol X
    -record_padding X
    -debug_broken_protocol
    -no_middlebox
    -no_etm
    -CRL X : reads
    -CRLform X
    -verify_return_error
    -verify_quiet
    -chainCAfile X : reads
    -chainCApath X
    -chainCAstore X
    -verifyCAfile X : reads
    -verifyCApath X
    -verifyCAstore X
    -xkey X : reads
    -xcert X : reads
    -xchain X : reads
    -xchain_build
    -xcertform X
    -xkeyform X
    @end
    @block openssl-2
    @use openssl-3
    -encrypt
    -decrypt
    -sign
    -resign
    -inform X
    -outform X
    -stream
    -indef
    -noindef
    -binary
    -crlfeol
    -keyform X
    -recip X : reads
    -md X
    -signer X : writes
    -certfile X : reads
    -nodetach
    -nocerts
    -noattr
    -nosmimecap
    -content X : reads
    -nosigs
    -noverify
    -nointern
    -no-CAfile
    -no-CApath
    -no-CAstore
    -to X
    -from X
    -subject X
    @end
    @block openssl-3
    @use openssl-6
    -config X : reads
    -inkey X
    -passin X
    -in X : reads
    -verify
    -out X : writes
    -text
    -rand X
    -writerand X : writes
    @end
    @block openssl-4
    @use openssl-6
    -nameopt X
    -no-CAfile
    -no-CApath
    -no-CAstore
    -crl_download
    @end
    @block openssl-5
    @use openssl-7
    -proxy X
    -no_proxy X
    -path X
    -reqin X
    -reqout X : writes
    -port X
    @end
    @block openssl-6
    @use openssl-7
    -engine X : unprovable loads code into openssl
    -CAfile X : reads
    -CApath X
    -CAstore X
    @end
    @block openssl-7
    -help
    -provider-path X : unprovable loads code into openssl
    -provider X : unprovable loads code into openssl
    -propquery X
    -policy X
    -purpose X
    -verify_name X
    -verify_depth X
    -auth_level X
    -attime X
    -verify_hostname X
    -verify_email X
    -verify_ip X
    -ignore_critical
    -issuer_checks
    -crl_check
    -crl_check_all
    -policy_check
    -explicit_policy
    -inhibit_any
    -inhibit_map
    -x509_strict
    -extended_crl
    -use_deltas
    -policy_print
    -check_ss_sig
    -trusted_first
    -suiteB_128_only
    -suiteB_128
    -suiteB_192
    -partial_chain
    -no_alt_chains
    -no_check_time
    -allow_proxy_certs
    @end
    @block openssl-8
    @use openssl-11
    -new
    -nameopt X
    -text
    -CA X : reads
    -CAkey X
    -subject
    -set_serial X
    -copy_extensions X
    -pubkey
    -outform X
    -noout
    -modulus
    @end
    @block openssl-9
    @use openssl-21
    -sign
    -encrypt
    -decrypt
    -pubin
    -inkey X
    -certin
    -rev
    -asn1parse
    -hexdump
    -rand X
    -writerand X : writes
    @end
    @block openssl-10
    @use openssl-13
    -pvk-strong
    -pvk-weak
    -pvk-none
    -modulus
    @end
    @block openssl-11
    @use openssl-18
    -subj X
    -days X
    -extensions X
    -keyform X
    -key X
    -sigopt X
    -vfyopt X
    @end
    @block openssl-12
    @use openssl-13
    -check
    @end
    @block openssl-13
    @use openssl-22
    -in X
    -pubin
    -passin X
    -pubout
    -passout X
    @end
    @block openssl-14
    @use openssl-16
    -check
    @end
    @block openssl-15
    @use openssl-20
    -in X : reads
    -out X : writes
    -noout
    @end
    @block openssl-16
    @use openssl-17
    -rand X
    -writerand X : writes
    @end
    @block openssl-17
    @use openssl-22
    -in X : reads
    @end
    @block openssl-18
    @use openssl-28
    -in X : reads
    -inform X
    -passin X
    @end
    @block openssl-19
    @use openssl-24
    -out X : writes
    @end
    @block openssl-20
    @use openssl-38
    -help
    -CApath X
    -provider-path X : unprovable loads code into openssl
    -provider X : unprovable loads code into openssl
    -propquery X
    @end
    @block openssl-21
    @use openssl-31
    -engine X : unprovable loads code into openssl
    -keyform X
    -passin X
    -verify
    @end
    @block openssl-22
    @use openssl-25
    -inform X
    -noout
    @end
    @block openssl-23
    @use openssl-35
    -bugs
    -cipher X
    -verify X
    -cert X : reads
    @end
    @block openssl-24
    @use openssl-29
    -verbose
    -passout X
    @end
    @block openssl-25
    @use openssl-30
    -outform X
    @end
    @block openssl-26
    @use openssl-39
    -cipher X
    -digest X
    -binary
    @end
    @block openssl-27
    @use openssl-30
    -noout
    @end
    @block openssl-28
    @use openssl-29
    -out X : writes
    @end
    @block openssl-29
    @use openssl-32
    -engine X : unprovable loads code into openssl
    @end
    @block openssl-30
    @use openssl-39
    -engine X : unprovable loads code into openssl
    -text
    @end
    @block openssl-31
    @use openssl-39
    -in X : reads
    @end
    @block openssl-32
    -help
    -rand X
    -writerand X : writes
    -provider-path X : unprovable loads code into openssl
    -provider X : unprovable loads code into openssl
    -propquery X
    @end
    @block openssl-33
    -verbose
    -batch
    -section X
    -utf8
    -multivalue-rdn
    @end
    @block openssl-34
    -help
    -v
    -provider-path X : unprovable loads code into openssl
    -provider X : unprovable loads code into openssl
    -propquery X
    @end
    @block openssl-35
    -tls1
    -tls1_1
    -tls1_2
    -tls1_3
    -ciphersuites X
    @end
    @block openssl-36
    -key X
    -certform X
    -keyform X
    -rand X
    -writerand X : writes
    @end
    @block openssl-37
    -dateopt X
    -hash
    -issuer
    -fingerprint
    -badsig
    @end
    @block openssl-38
    -CAfile X : reads
    -CAstore X
    -no-CAfile
    -no-CApath
    -no-CAstore
    @end
    @block openssl-39
    -help
    -out X : writes
    -provider-path X : unprovable loads code into openssl
    -provider X : unprovable loads code into openssl
    -propquery X
    @end
    @sub asn1parse : read-only
    -help
    -oid X : reads
    -inform X
    -in X : reads
    -out X : writes
    -noout
    -offset X
    -length X
    -strparse X
    -genstr X
    -genconf X
    -strictpem
    -item X
    -i
    -dump
    -dlimit X
    @sub ca
    @use openssl-11
    @use openssl-33
    -outdir X : writes-into
    -infiles
    -dateopt X
    -notext
    -msie_hack
    -ss_cert X : reads
    -spkac X : reads
    -config X
    -name X
    -policy X
    -create_serial
    -rand_serial
    -startdate X
    -enddate X
    -extfile X : reads
    -preserveDN
    -noemailDN
    -md X
    -keyfile X
    -cert X : reads
    -certform X
    -selfsign
    -gencrl
    -valid X
    -status X
    -updatedb
    -crlexts X
    -crl_reason X
    -crl_hold X
    -crl_compromise X
    -crl_CA_compromise X
    -crl_lastupdate X
    -crl_nextupdate X
    -crldays X
    -crlhours X
    -crlsec X
    -revoke X : reads
    @sub ciphers : read-only
    @use openssl-34
    @use openssl-35
    -V
    -stdname
    -convert X
    -s
    -psk
    -srp
    @sub cmp
    @use openssl-5
    @use openssl-36
    -config X
    -section X
    -verbosity X
    -cmd X
    -infotype X
    -geninfo X
    -newkey X
    -newkeypass X
    -subject X
    -issuer X
    -days X
    -reqexts X
    -sans X
    -san_nodefault
    -policies X
    -policy_oids X
    -policy_oids_critical
    -popo X
    -csr X
    -out_trusted X : reads
    -implicit_confirm
    -disable_confirm
    -certout X : writes
    -chainout X : writes
    -oldcert X
    -revreason X
    -server X
    -recipient X
    -keep_alive X
    -msg_timeout X
    -total_timeout X
    -trusted X
    -untrusted X
    -srvcert X
    -expect_sender X
    -ignore_keyusage
    -unprotected_errors
    -extracertsout X : writes
    -cacertsout X : writes
    -ref X
    -secret X
    -cert X
    -own_trusted X
    -keypass X
    -digest X
    -mac X
    -extracerts X
    -unprotected_requests
    -otherpass X
    -engine X : unprovable loads code into openssl
    -tls_used
    -tls_cert X
    -tls_key X
    -tls_keypass X
    -tls_extra X
    -tls_trusted X
    -tls_host X
    -batch
    -repeat X
    -reqin_new_tid
    -rspin X
    -rspout X : writes
    -use_mock_srv
    -max_msgs X
    -srv_ref X
    -srv_secret X
    -srv_cert X
    -srv_key X
    -srv_keypass X
    -srv_trusted X
    -srv_untrusted X
    -rsp_cert X
    -rsp_extracerts X
    -rsp_capubs X
    -poll_count X
    -check_after X
    -grant_implicitconf
    -pkistatus X
    -failure X
    -failurebits X
    -statusstring X
    -send_error
    -send_unprotected
    -send_unprot_err
    -accept_unprotected
    -accept_unprot_err
    -accept_raverified
    @sub cms
    @use openssl-ciphers
    @use openssl-2
    -cert X : reads
    -sign_receipt
    -verify_receipt X : reads
    -digest_create
    -digest_verify
    -compress
    -uncompress
    -EncryptedData_encrypt
    -EncryptedData_decrypt
    -data_create
    -data_out
    -cmsout
    -rctform X
    -asciicrlf
    -pwri_password X
    -secretkey X
    -secretkeyid X
    -keyopt X
    -originator X
    -wrap X
    -aes128-wrap
    -aes192-wrap
    -aes256-wrap
    -des3-wrap
    -debug_decrypt
    -cades
    -receipt_request_all
    -receipt_request_first
    -receipt_request_from X
    -receipt_request_to X
    -no_content_verify
    -no_attr_verify
    -verify_retcode
    -keyid
    -econtent_type X
    -certsout X : writes
    -noout
    -print
    -nameopt X
    -receipt_request_print
    @sub crl : read-only
    @use openssl-15
    @use openssl-37
    -verify
    -inform X
    -key X : reads
    -keyform X
    -outform X
    -text
    -hash_old
    -nameopt X
    -lastupdate
    -nextupdate
    -crlnumber
    -gendelta X : reads
    @sub crl2pkcs7
    @use openssl-31
    -inform X
    -nocrl
    -certfile X : reads
    -outform X
    @sub dgst : read-only
    @use openssl-dgst
    @sub dhparam
    @use openssl-14
    -dsaparam
    -2
    -3
    -5
    @sub dsa
    @use openssl-ciphers
    @use openssl-10
    @sub dsaparam
    @use openssl-16
    -verbose
    -genkey
    @sub ec
    @use openssl-ciphers
    @use openssl-12
    -param_enc X
    -conv_form X
    -param_out
    -no_public
    @sub ecparam
    @use openssl-14
    -list_curves
    -genkey
    -param_enc X
    -check_named
    -no_seed
    -name X
    -conv_form X
    @sub enc
    @use openssl-enc
    @sub engine
    -help
    -t
    -pre X
    -post X
    -v
    -vv
    -vvv
    -vvvv
    -c
    -tt
    @sub errstr : read-only
    -help
    @sub fipsinstall
    -help
    -verify
    -module X : reads
    -provider_name X
    -section_name X
    -no_conditional_errors
    -no_security_checks
    -self_test_onload
    -in X : reads
    -out X : writes
    -mac_name X
    -macopt X
    -noout
    -corrupt_desc X
    -corrupt_type X
    -config X : reads
    -quiet
    @sub gendsa
    @use openssl-ciphers
    @use openssl-19
    @sub genpkey
    @use openssl-ciphers
    @use openssl-25
    -paramfile X : reads
    -algorithm X
    -quiet
    -pkeyopt X
    -config X : reads
    -pass X
    -genparam
    @sub genrsa
    @use openssl-ciphers
    @use openssl-19
    -3
    -F4
    -f4
    -primes X
    -traditional
    @sub help : read-only
    -help
    @sub info
    -help
    -configdir
    -enginesdir
    -modulesdir
    -dsoext
    -dirnamesep
    -listsep
    -seeds
    -cpusettings
    @sub kdf
    @use openssl-26
    -kdfopt X
    -mac X
    -keylen X
    @sub list : read-only
    -help
    -1
    -verbose
    -select X
    -commands
    -standard-commands
    -digest-commands
    -digest-algorithms
    -kdf-algorithms
    -random-instances
    -random-generators
    -mac-algorithms
    -cipher-commands
    -cipher-algorithms
    -encoders
    -decoders
    -key-managers
    -key-exchange-algorithms
    -kem-algorithms
    -signature-algorithms
    -asymcipher-algorithms
    -public-key-algorithms
    -public-key-methods
    -store-loaders
    -providers
    -engines
    -disabled
    -options X
    -objects
    -provider-path X : unprovable loads code into openssl
    -provider X : unprovable loads code into openssl
    -propquery X
    @sub mac
    @use openssl-26
    -macopt X
    -in X : reads
    @sub nseq
    @use openssl-31
    -toseq
    @sub ocsp
    @use openssl-digests
    @use openssl-5
    @use openssl-38
    -ignore_err
    -CApath X : reads
    -timeout X
    -resp_no_certs
    -multi X
    -no_certs
    -badsig
    -CA X : reads
    -nmin X
    -nrequest X
    -signer X : reads
    -sign_other X : reads
    -index X : writes
    -ndays X
    -rsigner X : reads
    -rkey X : reads
    -passin X
    -rother X : reads
    -rmd X
    -rsigopt X
    -header X
    -rcid X
    -url X
    -host X
    -out X : writes
    -noverify
    -nonce
    -no_nonce
    -no_signature_verify
    -resp_key_id
    -no_cert_verify
    -text
    -req_text
    -resp_text
    -no_chain
    -no_cert_checks
    -no_explicit
    -trust_other
    -no_intern
    -respin X
    -VAfile X : reads
    -verify_other X : reads
    -cert X : reads
    -serial X
    -validity_period X
    -signkey X
    -respout X : writes
    -issuer X : reads
    -status_age X
    @sub passwd
    @use openssl-32
    -in X : reads
    -noverify
    -stdin
    -quiet
    -table
    -reverse
    -salt X
    -6
    -5
    -apr1
    -1
    -aixmd5
    @sub pkcs12
    @use openssl-ciphers
    @use openssl-15
    -passin X
    -passout X
    -password X
    -twopass
    -nokeys
    -nocerts
    -legacy
    -engine X : unprovable loads code into openssl
    -rand X
    -writerand X : writes
    -info
    -nomacver
    -clcerts
    -cacerts
    -noenc
    -nodes
    -export
    -inkey X
    -certfile X : reads
    -passcerts X
    -chain
    -untrusted X : reads
    -name X
    -caname X
    -CSP X
    -LMK
    -keyex
    -keysig
    -keypbe X
    -certpbe X
    -descert
    -macalg X
    -iter X
    -noiter
    -nomaciter
    -maciter
    -nomac
    @sub pkcs7
    @use openssl-17
    -print
    -print_certs
    @sub pkcs8
    @use openssl-18
    -v1 X
    -v2 X
    -v2prf X
    -nocrypt
    -outform X
    -topk8
    -passout X
    -traditional
    -iter X
    -noiter
    -scrypt
    -scrypt_N X
    -scrypt_r X
    -scrypt_p X
    @sub pkey : read-only
    @use openssl-ciphers
    @use openssl-12
    -pubcheck
    -traditional
    -text_pub
    -ec_conv_form X
    -ec_param_enc X
    @sub pkeyparam
    @use openssl-27
    -check
    -in X : reads
    @sub pkeyutl
    @use openssl-9
    -engine_impl
    -derive
    -config X : reads
    -rawin
    -peerkey X
    -peerform X
    -sigfile X : reads
    -verifyrecover
    -digest X
    -pkeyopt X
    -pkeyopt_passin X
    -kdf X
    -kdflen X
    @sub prime : read-only
    -help
    -bits X
    -checks X
    -hex
    -generate
    -safe
    -provider-path X : unprovable loads code into openssl
    -provider X : unprovable loads code into openssl
    -propquery X
    @sub rand : read-only
    @use openssl-28
    -base64
    -hex
    @sub rehash
    @use openssl-34
    -h
    -compat
    -old
    -n
    @sub req : read-only
    @use openssl-digests
    @use openssl-8
    @use openssl-33
    -keygen_engine X : unprovable loads code into openssl
    -verify
    -config X : reads
    -reqopt X
    -x509
    -addext X
    -reqexts X
    -precert
    -keyout X : writes
    -passout X
    -newkey X
    -pkeyopt X
    -noenc
    -nodes
    -newhdr
    @sub rsa : read-only
    @use openssl-ciphers
    @use openssl-10
    -check
    -RSAPublicKey_in
    -RSAPublicKey_out
    -traditional
    @sub rsautl
    @use openssl-9
    -raw
    -pkcs
    -x931
    -oaep
    @sub s_client : read-only
    @use openssl-1
    -ssl_client_engine X : unprovable loads code into openssl
    -ct
    -noct
    -ctlogfile X : reads
    -host X
    -connect X
    -bind X
    -proxy_user X
    -proxy_pass X
    -maxfraglen X
    -fallback_scsv
    -requestCAfile X : reads
    -dane_tlsa_domain X
    -dane_tlsa_rrdata X
    -dane_ee_no_namechecks
    -name X
    -reconnect
    -sess_out X : writes
    -sess_in X : reads
    -starttls X
    -xmpphost X
    -prexit
    -showcerts
    -nocommands
    -noservername
    -early_data X : reads
    -enable_pha
    -srpuser X
    -srppass X
    -srp_lateuser
    -srp_moregroups
    -srp_strength X
    @sub s_server : changes starts a TLS server
    @use openssl-1
    -accept X
    -unlink
    -context X
    -nocert
    -Verify X
    -cert2 X : reads
    -key2 X : reads
    -dcert X : reads
    -dcertform X
    -dcert_chain X : reads
    -dkey X : reads
    -dkeyform X
    -dpass X
    -dhparam X : reads
    -servername_fatal
    -no_resume_ephemeral
    -www
    -WWW
    -HTTP
    -id_prefix X
    -no_cache
    -ext_cache
    -status_verbose
    -status_timeout X
    -status_url X
    -no_proxy X
    -status_file X : reads
    -rev
    -naccept X
    -psk_hint X
    -srpvfile X : reads
    -srpuserseed X
    -max_early_data X
    -recv_max_early_data X
    -early_data
    -num_tickets X
    -anti_replay
    -no_anti_replay
    -http_server_binmode
    -no_ca_names
    -stateless
    -listen
    -no_dhe
    -sendfile
    @sub s_time
    @use openssl-20
    @use openssl-23
    -connect X
    -new
    -reuse
    -time X
    -www X
    -nameopt X
    -key X : reads
    -cafile X : reads
    @sub sess_id : read-only
    -help
    -context X
    -in X
    -inform X
    -out X : writes
    -outform X
    -text
    -cert
    -noout
    @sub smime
    @use openssl-ciphers
    @use openssl-2
    -pk7out
    -nochain
    @sub speed : read-only
    @use openssl-29
    -mb
    -mr
    -multi X
    -async_jobs X
    -primes X
    -evp X
    -hmac X
    -cmac X
    -decrypt
    -aead
    -elapsed
    -seconds X
    -bytes X
    -misalign X
    @sub spkac
    @use openssl-21
    -spksect X
    -key X : reads
    -challenge X
    -spkac X
    -digest X
    -noout
    -pubkey
    @sub srp
    @use openssl-24
    -config X : reads
    -name X
    -add
    -modify
    -delete
    -list
    -srpvfile X : reads
    -gn X
    -userinfo X
    -passin X
    @sub storeutl
    @use openssl-27
    -certs
    -keys
    -crls
    -subject X
    -issuer X
    -serial X
    -fingerprint X
    -alias X
    -r
    -passin X
    @sub ts
    @use openssl-digests
    @use openssl-3
    -section X
    -signer X
    -chain X : reads
    -untrusted X : reads
    -token_in
    -token_out
    -query
    -data X : reads
    -digest X
    -queryfile X : reads
    -cert
    -reply
    -tspolicy X
    -no_nonce
    @sub verify : read-only
    @use openssl-4
    -verbose
    -trusted X : reads
    -untrusted X : reads
    -CRLfile X : reads
    -show_chain
    -vfyopt X
    @sub version : read-only
    -help
    -a
    -b
    -d
    -e
    -m
    -f
    -o
    -p
    -r
    -v
    -c
    @sub x509 : read-only
    @use openssl-digests
    @use openssl-8
    @use openssl-37
    -x509toreq
    -req
    -signkey X
    -nocert
    -certopt X
    -alias
    -serial
    -startdate
    -enddate
    -dates
    -email
    -subject_hash
    -subject_hash_old
    -issuer_hash
    -issuer_hash_old
    -ext X
    -ocspid
    -ocsp_uri
    -purpose
    -checkend X
    -checkhost X
    -checkemail X
    -checkip X
    -next_serial
    -preserve_dates
    -force_pubkey X : reads
    -clrext
    -extfile X : reads
    -CAform X
    -CAkeyform X
    -CAserial X
    -CAcreateserial
    -trustout
    -setalias X
    -clrtrust
    -addtrust X
    -clrreject
    -addreject X
    @sub blake2b512, blake2s256, md5, rmd160, sha1, sha224, sha256, sha3-224, sha3-256, sha3-384, sha3-512, sha384, sha512, sha512-224, sha512-256, shake128, shake256, sm3 : read-only
    @use openssl-dgst
    @sub aes-128-cbc, aes-128-ecb, aes-192-cbc, aes-192-ecb, aes-256-cbc, aes-256-ecb, aria-128-cbc, aria-128-cfb, aria-128-cfb1, aria-128-cfb8, aria-128-ctr, aria-128-ecb, aria-128-ofb, aria-192-cbc, aria-192-cfb, aria-192-cfb1, aria-192-cfb8, aria-192-ctr, aria-192-ecb, aria-192-ofb, aria-256-cbc, aria-256-cfb, aria-256-cfb1, aria-256-cfb8, aria-256-ctr, aria-256-ecb, aria-256-ofb, camellia-128-cbc, camellia-128-ecb, camellia-192-cbc, camellia-192-ecb, camellia-256-cbc, camellia-256-ecb, des-ede, des-ede-cbc, des-ede-cfb, des-ede-ofb, des-ede3, des-ede3-cbc, des-ede3-cfb, des-ede3-ofb, des3, sm4-cbc, sm4-cfb, sm4-ctr, sm4-ecb, sm4-ofb
    @use openssl-enc";

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["ansible"],
        family: "services",
        text: "@operands args
               --ask-vault-password, --ask-vault-pass
               --become-password-file=X, --become-pass-file=X : reads
               --connection-password-file=X, --conn-pass-file=X : reads
               --list-hosts
               --playbook-dir=X : harmless
               --task-timeout=X
               --vault-id=X
               --vault-password-file=X, --vault-pass-file=X : unprovable runs the password file when it is a program
               --version
               -B X, --background=X
               -C, --check
               -D, --diff
               -K, --ask-become-pass
               -M X, --module-path=X : unprovable loads modules from another folder
               -P X, --poll=X
               -a X, --args=X
               -e X, --extra-vars=X
               -f X, --forks=X
               -h, --help
               -i X, --inventory=X, --inventory-file=X
               -k, --ask-pass
               -l X, --limit=X
               -m X, --module-name=X
               -o, --one-line
               -t X, --tree=X : writes-into
               -v, --verbose
               --become-method=X
               --become-user=X
               -b, --become
               --private-key=X, --key-file=X : reads
               --scp-extra-args=X
               --sftp-extra-args=X
               --ssh-common-args=X
               --ssh-extra-args=X
               -T X, --timeout=X
               -c X, --connection=X
               -u X, --user=X",
        hook: Some(ansible),
    },
    Spec {
        names: &["certbot", "letsencrypt"],
        family: "services",
        text: "@operands args
               @subs-optional
               -d X
               --standalone
               --webroot
               --manual
               -n
               --test-cert
               --dry-run
               --agree-tos
               -m X
               -h, --help
               -c X, --config=X : unprovable reads settings from a file, which can name hooks to run
               -v, --verbose
               --max-log-backups=X
               --non-interactive, --noninteractive
               --force-interactive
               --domains=X, --domain=X
               --eab-kid=X
               --eab-hmac-key=X
               --cert-name=X
               --debug-challenges
               --preferred-chain=X
               --preferred-challenges=X
               --issuance-timeout=X
               --user-agent=X
               --user-agent-comment=X
               --keep-until-expiring, --keep, --reinstall
               --expand
               --version
               --force-renewal, --renew-by-default
               --renew-with-new-domains
               --reuse-key
               --no-reuse-key
               --new-key
               --allow-subset-of-names
               --duplicate
               -q, --quiet
               --rsa-key-size=X
               --elliptic-curve=X
               --must-staple
               --redirect
               --no-redirect
               --hsts
               --uir
               --staple-ocsp
               --strict-permissions
               --auto-hsts
               --staging
               --debug
               --no-verify-ssl
               --https-port=X
               --break-my-certs
               --cert-path=X
               --key-path=X
               --fullchain-path=X
               --chain-path=X
               --config-dir=X
               --work-dir=X
               --logs-dir=X
               --server=X
               --csr=X
               --pre-hook=X : runs *
               --post-hook=X : runs *
               --deploy-hook=X : runs *
               --disable-hook-validation
               --no-directory-hooks
               --disable-renew-updates
               --no-autorenew
               --delete-after-revoke
               --no-delete-after-revoke
               --register-unsafely-without-email
               --email=X
               --eff-email
               --no-eff-email
               --account=X
               --checkpoints=X
               --init
               --prepare
               --authenticators
               --installers
               --configurator=X
               -a X, --authenticator=X
               -i X, --installer=X
               --apache
               --nginx
               --dns-cloudflare
               --dns-digitalocean
               --dns-dnsimple
               --dns-dnsmadeeasy
               --dns-gehirn
               --dns-google
               --dns-linode
               --dns-luadns
               --dns-nsone
               --dns-ovh
               --dns-rfc2136
               --dns-route53
               --dns-sakuracloud
               --manual-auth-hook=X : runs *
               --manual-cleanup-hook=X : runs *
               --webroot-path=X, -w X
               --webroot-map=X
               --key-type=TYPE
               --http-01-port=PORT
               --http-01-address=ADDRESS
               --reason=REASON
               @sub certificates : read-only
               @sub plugins : read-only
               @sub run : changes
               @sub certonly : changes
               @sub renew : changes
               @sub enhance : changes
               @sub revoke : changes
               @sub delete : changes
               @sub register : changes
               @sub update_account : changes
               @sub unregister : changes
               @sub install : changes
               @sub rollback : changes
               @sub reconfigure : changes
               @sub show_account : changes
               @sub update_symlinks : changes",
        hook: None,
    },
    Spec {
        names: &["logrotate"],
        family: "services",
        text: "@operands files
               -d, --debug
               -f, --force
               -m X, --mail=X : runs mail mailx sendmail
               -s X, --state=X : writes
               --skip-state-lock
               --wait-for-state-lock
               -v, --verbose
               -l X, --log=X : writes
               --version
               -?, --help
               --usage",
        hook: Some(logrotate),
    },
    Spec {
        names: &["nginx"],
        family: "services",
        text: "@read-only
               @operands args
               -?, -h
               -v
               -V
               -t
               -T
               -q
               -s SIGNAL : changes signals the running nginx
               -p PREFIX
               -e FILE : writes
               -c FILE : reads
               -g DIRECTIVES",
        hook: Some(nginx),
    },
    Spec {
        names: &["apachectl", "apache2ctl"],
        family: "services",
        text: "@read-only
               @operands args
               -d DIR
               -f FILE : reads
               -C DIRECTIVE
               -c DIRECTIVE
               -D NAME
               -e LEVEL
               -E FILE : writes
               -k ACTION
               -h
               -l
               -L
               -S
               -t
               -T
               -v
               -V
               -X
               -M",
        hook: Some(apachectl),
    },
    Spec {
        names: &["sshd"],
        family: "services",
        text: "@read-only
               @operands args
               -4
               -6
               -C SPEC
               -c FILE : reads
               -D
               -d
               -E FILE : writes
               -e
               -f FILE : reads
               -G
               -g SECONDS
               -h FILE : reads
               -i
               -k SECONDS
               -o OPTION
               -p PORT
               -q
               -r
               -T
               -t
               -u LENGTH
               -V",
        hook: Some(sshd),
    },
    Spec {
        names: &["openssl"],
        family: "services",
        text: OPENSSL,
        hook: Some(openssl),
    },
    Spec {
        names: &["tcpdump"],
        family: "services",
        text: "@operands args
               -A
               -b
               -B SIZE, --buffer-size=SIZE
               -c COUNT
               --count
               -C SIZE
               -d, -dd, -ddd
               -D, --list-interfaces
               -e
               -E SPEC
               -f
               -F FILE : reads
               -G SECONDS
               -h, --help
               --version
               -H
               -i IFACE, --interface=IFACE
               -I, --monitor-mode
               --immediate-mode
               -j TYPE, --time-stamp-type=TYPE
               -J, --list-time-stamp-types
               --time-stamp-precision=PRECISION
               --micro
               --nano
               -K, --dont-verify-checksums
               -l
               -L, --list-data-link-types
               -m FILE : reads
               -M SECRET
               -n
               -N
               -#, --number
               -O, --no-optimize
               -p, --no-promiscuous-mode
               --print
               -Q DIRECTION, --direction=DIRECTION
               -q
               -r FILE : reads
               -S, --absolute-tcp-sequence-numbers
               -s LEN, --snapshot-length=LEN
               -T TYPE
               -t, -tt, -ttt, -tttt
               -u
               -U, --packet-buffered
               -v, -vv, -vvv
               -V FILE : reads
               -w FILE : writes
               -W N
               -x, -xx
               -X, -XX
               -y TYPE, --linktype=TYPE
               -z COMMAND : runs+ gzip bzip2 xz zstd
               -Z USER, --relinquish-privileges=USER",
        hook: None,
    },
    Spec {
        names: &["gdb"],
        family: "services",
        text: "@operands args
               -args, --args
               -core X, --core=X : reads
               -c X : reads
               -exec X, --exec=X : reads
               -e X : reads
               -pid X, --pid=X
               -p X
               -directory X, --directory=X
               -d X
               -se X, --se=X : reads
               -symbols X, --symbols=X : reads
               -s X : reads
               -readnow, --readnow
               -readnever, --readnever
               -write, --write : changes writes into the program and core files
               -command X, --command=X : unprovable runs debugger commands, which can start programs
               -x X : unprovable runs debugger commands, which can start programs
               -init-command X, --init-command=X : unprovable runs debugger commands, which can start programs
               -ix X : unprovable runs debugger commands, which can start programs
               -eval-command X, --eval-command=X : unprovable runs debugger commands, which can start programs
               -ex X : unprovable runs debugger commands, which can start programs
               -init-eval-command X, --init-eval-command=X : unprovable runs debugger commands, which can start programs
               -iex X : unprovable runs debugger commands, which can start programs
               -nh, --nh
               -nx, --nx
               -n
               -fullname, --fullname
               -f
               -interpreter X, --interpreter=X
               -tty X, --tty=X
               -t X
               -w
               -nw, --nw
               -tui, --tui
               -q
               -quiet, --quiet
               -silent, --silent
               -batch, --batch
               -batch-silent, --batch-silent
               -return-child-result, --return-child-result
               -configuration, --configuration
               -help, --help
               -h
               -version, --version
               -b X
               -l X
               -cd X, --cd=X
               -data-directory X, --data-directory=X
               -D X",
        hook: None,
    },
];

/// Modules whose arguments are a command run on the hosts.
const COMMAND_MODULES: &[&str] = &["command", "shell", "raw"];
/// Modules whose effect [`module_effect`] reads from their arguments.
const KNOWN_MODULES: &[&str] = &[
    "copy",
    "template",
    "lineinfile",
    "blockinfile",
    "replace",
    "ini_file",
    "assemble",
    "get_url",
    "unarchive",
    "file",
    "fetch",
    "service",
    "systemd",
    "systemd_service",
    "sysvinit",
    "user",
    "group",
    "reboot",
    "apt",
    "yum",
    "dnf",
    "package",
    "authorized_key",
    "iptables",
    "ufw",
    "firewalld",
    "nftables",
    "cron",
    "git",
    "pip",
];

/// What a module does on the hosts, judged from its `key=value` arguments (see
/// [`module_effect`]); writing files and running services is a module's own effect.
enum ModuleEffect {
    /// A file written on this computer (`fetch dest=`).
    Local(String),
    /// A change that can cut off access to the hosts.
    Lockout(String),
    /// A change that destroys data or accounts on the hosts.
    Dangerous(String),
}

/// The effect of one module call that asks: a lock-out file written, the SSH server or the
/// network stopped, files, accounts or the SSH package removed, the hosts rebooted.
fn module_effect(module: &str, args: &str) -> Option<ModuleEffect> {
    let value = |key: &str| {
        args.split_whitespace().find_map(|pair| {
            pair.split_once('=')
                .filter(|(name, _)| *name == key)
                .map(|(_, value)| value.trim_matches(['\'', '"']).to_owned())
        })
    };
    let path = || {
        value("dest")
            .or_else(|| value("path"))
            .or_else(|| value("name"))
    };
    let state = value("state").unwrap_or_default();
    let yes = |key: &str| matches!(value(key).as_deref(), Some("yes" | "true" | "True"));
    let no = |key: &str| matches!(value(key).as_deref(), Some("no" | "false" | "False"));
    Some(match module {
        "copy" | "template" | "lineinfile" | "blockinfile" | "replace" | "ini_file"
        | "assemble" | "get_url" | "unarchive" | "file"
            if state != "absent" =>
        {
            let path = path()?;
            lockout_match(&normalise_path(&path, None), true)?;
            ModuleEffect::Lockout(format!("writes {path} on the hosts"))
        }
        "file" => ModuleEffect::Dangerous(format!("deletes {} on the hosts", path()?)),
        "fetch" => ModuleEffect::Local(value("dest")?),
        "service" | "systemd" | "systemd_service" | "sysvinit" => {
            let name = value("name")?;
            let stops = matches!(state.as_str(), "stopped" | "restarted" | "reloaded")
                || no("enabled")
                || yes("masked");
            if !(stops && is_access_service(&name)) {
                return None;
            }
            ModuleEffect::Lockout(format!("stops or restarts {name} on the hosts"))
        }
        "user" | "group" if state == "absent" => ModuleEffect::Dangerous(format!(
            "deletes the account {} on the hosts",
            value("name")?
        )),
        "user" if value("password").is_some() || yes("password_lock") => ModuleEffect::Dangerous(
            format!("changes the password of {} on the hosts", value("name")?),
        ),
        "reboot" => ModuleEffect::Dangerous("reboots the hosts".to_owned()),
        "apt" | "yum" | "dnf" | "package"
            if state == "absent" && value("name")?.split(',').any(is_ssh_package) =>
        {
            ModuleEffect::Dangerous("removes the SSH server package on the hosts".to_owned())
        }
        "authorized_key" => {
            ModuleEffect::Lockout("changes a user's authorized_keys on the hosts".to_owned())
        }
        "iptables" | "ufw" | "firewalld" | "nftables" => {
            ModuleEffect::Lockout("changes the firewall of the hosts".to_owned())
        }
        _ => return None,
    })
}

/// Modules that only read.
const READ_MODULES: &[&str] = &[
    "ping",
    "setup",
    "gather_facts",
    "debug",
    "stat",
    "package_facts",
    "service_facts",
    "slurp",
    "find",
    "getent",
    "wait_for_connection",
    "assert",
    "fail",
    "set_fact",
    "include_vars",
    "uri",
];

fn ansible(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    let hosts = call
        .operand_texts()
        .first()
        .copied()
        .unwrap_or("all")
        .to_owned();
    let module = call.value("--module-name").unwrap_or("command");
    let module = module.rsplit('.').next().unwrap_or(module);
    let remote = format!("every host in {hosts} (ansible)");
    // `--list-hosts` only lists the hosts: nothing runs.
    let lists = call.has("--list-hosts");
    for (args, index) in call.values("--args").into_iter().filter(|_| !lists) {
        if COMMAND_MODULES.contains(&module) {
            verdict.script(args, format!("ansible -m {module}"), Some(index), false);
            if let Some(last) = verdict.runs.last_mut() {
                last.remote = Some(remote.clone());
            }
        } else if matches!(module, "script" | "expect" | "win_shell" | "win_command") {
            let any = Runs {
                expect: Vec::new(),
                more_args: false,
                remote: true,
            };
            verdict.runs_option(args, &format!("ansible -m {module}"), &any, Some(index));
        } else if let Some(effect) = module_effect(module, args) {
            match effect {
                ModuleEffect::Local(path) => {
                    verdict.output(&path, format!("ansible -m {module}"), false);
                }
                ModuleEffect::Lockout(what) => verdict.lockout(&display, &what),
                ModuleEffect::Dangerous(what) => verdict.dangerous(&display, &what),
            }
        }
    }
    if !COMMAND_MODULES.contains(&module)
        && !READ_MODULES.contains(&module)
        && !KNOWN_MODULES.contains(&module)
        && !matches!(module, "script" | "expect" | "win_shell" | "win_command")
        && !lists
    {
        verdict.unprovable(format!(
            "module {module} of ansible is not known to kaiport's rules, so what it does on the hosts cannot be told"
        ));
    }
    for (args, _) in call
        .values("--ssh-common-args")
        .into_iter()
        .chain(call.values("--ssh-extra-args"))
    {
        if args.to_ascii_lowercase().contains("command") || args.contains("-F") {
            verdict.unprovable("ansible's ssh arguments name a program to run");
        }
    }
    let reads = call.has("--list-hosts")
        || call.has("--check")
        || (READ_MODULES.contains(&module) && call.values("--module-name").len() == 1);
    if !reads {
        verdict.not_read_only(format!("`{display}` changes the hosts it runs on"));
    }
}

fn not_read_only(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.not_read_only(format!(
        "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
        call.display()
    ));
}

/// logrotate: a configuration runs its `prerotate`/`postrotate` scripts as root, so one from
/// outside the system's own (`/etc/logrotate.conf`, `/etc/logrotate.d`) is code nobody checked.
fn logrotate(call: &Call<'_>, verdict: &mut Verdict) {
    for config in call.operand_texts() {
        let path = normalise_path(config, None);
        if path != "/etc/logrotate.conf"
            && !path.starts_with("/etc/logrotate.d/")
            && path != "/etc/logrotate.d"
        {
            verdict.unprovable(format!(
                "`logrotate {config}`: a configuration's scripts run as root, and {config} is not the system's own"
            ));
        }
    }
}

fn nginx(call: &Call<'_>, verdict: &mut Verdict) {
    // Without -t, -T, -v or -V nginx starts a server.
    if !["-t", "-T", "-v", "-V", "-h"]
        .iter()
        .any(|option| call.has(option))
    {
        not_read_only(call, verdict);
    }
}

fn apachectl(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let first = positional(args).first().copied().unwrap_or_default();
    let reads = matches!(first, "configtest" | "status" | "fullstatus")
        || has_any(args, &["-t", "-S", "-M", "-v", "-V"]);
    if !reads {
        not_read_only(call, verdict);
    }
}

fn sshd(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    if !(has_short(args, "tT") || has_any(args, &["-V"])) {
        not_read_only(call, verdict);
    }
}

fn openssl(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    for (index, arg) in args.iter().enumerate() {
        if matches!(arg.as_str(), "-out" | "-keyout")
            && let Some(path) = args.get(index + 1)
        {
            verdict.output(path, format!("openssl {arg}"), false);
        }
        if arg == "-engine" {
            verdict.unprovable("`openssl -engine` loads code into openssl");
        }
    }
    // `openssl engine /path/x.so` and `-pre SO_PATH:…` load a shared library (code) as an engine.
    if call.sub(0) == "engine"
        && (call.has("-pre")
            || call.has("-post")
            || call
                .operand_texts()
                .iter()
                .any(|id| id.contains('/') || id.ends_with(".so")))
    {
        verdict.unprovable("`openssl engine` loads a shared library (code) into openssl");
    }
    // The commands that only print are read-only in the spec (digests by name included).
    let reads = call.path.first().is_some_and(|sub| sub.read_only)
        && !has_any(args, &["-out", "-new", "-keyout", "-signkey"]);
    if !reads {
        not_read_only(call, verdict);
    }
}
