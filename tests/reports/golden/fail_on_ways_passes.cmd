check examples/seed001.cu --kernel bank_conflict_test --fail-on 'ways>8' -o /dev/null
