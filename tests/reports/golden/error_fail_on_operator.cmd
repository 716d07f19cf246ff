check examples/seed001.cu --kernel bank_conflict_test --fail-on 'ways>=4'
