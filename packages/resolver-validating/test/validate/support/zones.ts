/** The zone the denial and budget tests sign: names on both sides of every proof. */
export const DENIAL_BODY = `@ IN SOA ns1 admin 1 7200 3600 1209600 3600
@ IN NS ns1
ns1 IN A 192.0.2.1
a IN A 192.0.2.2
c IN TXT "c"
x.y.e IN A 192.0.2.3
*.w IN TXT "wild"
sub IN NS ns.sub
ns.sub IN A 192.0.2.9
sec IN NS ns.sec
sec IN DS 12345 13 2 0102030405060708091011121314151617181920212223242526272829303132
ns.sec IN A 192.0.2.10`;
