# expect: 3: expected 'request <Name> versions <range> flexible <range>'
api 9000 Sample
request versions 0-1 flexible none
response SampleResponse versions 0-1 flexible none
